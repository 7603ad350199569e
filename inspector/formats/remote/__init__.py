"""Remote sources: files and folders read from ``http(s)://`` and ``s3://`` URLs by range requests.

A library the readers build on (it registers no reader): the URL path type
(:mod:`.path`), the transport and its bounds (:mod:`.transport`,
:mod:`.bounds`, :mod:`.options`), the seekable source (:mod:`.source`), folder
listings (:mod:`.folder`), the registry's remote opening (:mod:`.opening`) and
the network findings (:mod:`.rules`, :mod:`.errors`).
"""
