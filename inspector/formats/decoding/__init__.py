"""How stored bytes are decoded: the one deflate decoder (:mod:`.inflate`), the worker
threads decompression and hashing run on (:mod:`.workers`), and the versions of the
libraries that read files (:mod:`.versions`)."""
