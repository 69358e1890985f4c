"""algspec's version: a leaf module, so that the package and the modules that
record the version (dataset manifests) read one value without importing the package."""

__version__ = "0.1.0"
