"""The trial views of a recording: condition averages, trial image, stimulus viewer.

:class:`TrialsPanel` is the "Trials" tab of a document with a trial
structure (epochs or continuous); :class:`inspector.ui.trial_link.TrialLinks`
keeps the trial metadata table, the stimulus grid and these views on the
document's one :class:`~inspector.models.selection.TrialSelection`.  The
package imports pyqtgraph: the document tab imports it off the GUI thread
(:mod:`inspector.runtime.preload`) and builds it with :func:`build_in_steps`,
one plot an event-loop turn, the first time its tab is shown.
"""

from inspector.ui.trials.condition_plot import ConditionPlot
from inspector.ui.trials.panel import TrialsPanel, build_in_steps
from inspector.ui.trials.stimulus_viewer import StimulusViewer
from inspector.ui.trials.trial_image import TrialImage

__all__ = ["ConditionPlot", "StimulusViewer", "TrialImage", "TrialsPanel", "build_in_steps"]
