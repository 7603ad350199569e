"""Inspector: a desktop inspector for VneuroTK HDF5 recordings and AUCX archives."""

__version__ = "0.1.0"
APP_ID = "org.vneurotk.Inspector"
APP_NAME = "Inspector"
