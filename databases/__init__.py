"""The paged HDF5 store of endgame tables: file format, atomic writer, reader with a bounded
page cache, and the catalog of tables on disk."""
