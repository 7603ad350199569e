"""The trial views of a recording: condition averages, trial image, stimulus viewer.

:class:`TrialsPanel` is the "Trials" tab of a document with a trial
structure (epochs or continuous); :class:`TrialLinks` keeps the trial
metadata table, the stimulus grid and these views on the document's one
:class:`~inspector.models.selection.TrialSelection`.
"""

from inspector.ui.trials.condition_plot import ConditionPlot
from inspector.ui.trials.linking import TrialLinks
from inspector.ui.trials.panel import TrialsPanel
from inspector.ui.trials.stimulus_viewer import StimulusViewer
from inspector.ui.trials.trial_image import TrialImage

__all__ = ["ConditionPlot", "StimulusViewer", "TrialImage", "TrialLinks", "TrialsPanel"]
