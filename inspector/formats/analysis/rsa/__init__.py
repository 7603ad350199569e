"""Representational similarity analysis of a recording's vision features and responses.

Does the model see the stimuli as the brain does (Kriegeskorte, Mur and
Bandettini 2008)?  Small modules, no Qt:

* :mod:`.features`: the dissimilarity matrix of an array's rows, tile by
  tile with bounded memory (correlation, euclidean, cosine);
* :mod:`.matching`: stimuli paired by typed ID, never by position;
* :mod:`.neural`: the mean response per stimulus (the trial-average machinery);
* :mod:`.agreement`: Spearman correlation of two matrices and its
  permutation p-value;
* :mod:`.compute`: all of it for every record of a recording
  (:func:`~.compute.representational_similarity`);
* :mod:`.rules`: the ``rsa.*`` findings.
"""
