"""The Compare tab: what differs between two documents (File > Compare With…).

* :mod:`.session`: the comparison as a job (open, verify, compare) and its result;
* :mod:`.tree`: the tree of differences, grouped by section, with counts;
* :mod:`.detail`: what a selected difference shows (curves, rows, values);
* :mod:`.tab`: the tab putting them together;
* :mod:`.action`: the menu action and how it asks for the second file.

Every read runs on the job runner (:mod:`inspector.jobs`); the GUI thread only
applies results.
"""
