"""Display trees and the stored values of one node, as the views and ``inspector dump`` see them.

A library (it registers no reader): the header, object and provenance trees
(:mod:`.node`), a node's decoded values (:mod:`.data`, :mod:`.array_node`) and
their CSV/JSON/.npy dump (:mod:`.dump`).
"""
