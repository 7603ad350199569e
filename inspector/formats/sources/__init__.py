"""Where a document's files come from: which paths under a folder are documents
(:mod:`.discovery`), what kind a file is by its first bytes (:mod:`.signatures`), the
snapshot a document's file is read against (:mod:`.file_identity`), which files a
document may name (:mod:`.folder_bounds`), and the journal of temporaries a killed
writer left (:mod:`.partials`)."""
