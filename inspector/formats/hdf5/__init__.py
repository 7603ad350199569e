"""inspector.formats.hdf5."""
