"""Experiments in the compare window, by concern:

- ``experiment_controller``: the loaded experiment, its live g-index, what-if edits kept beside
  the model's output, saving;
- ``task_table``: the task table's model and filter;
- ``experiment_panel``: the g-index, progress and the task table as one widget.

This module names the public pieces in one place.
"""
from gindex_studio.ui.compare.experiment_controller import PROCESS_CORES, PROCESS_PAIRS, ExperimentController
from gindex_studio.ui.compare.experiment_panel import (
    PROGRESS_MS,
    STAGE_SPAN,
    STAGE_WORDS,
    ExperimentPanel,
    components_text,
    domains_tooltip,
)
from gindex_studio.ui.compare.task_table import COLUMNS, SORT_ROLE, TaskFilter, TaskTableModel, leak_tip

__all__ = ["PROCESS_CORES", "PROCESS_PAIRS", "ExperimentController", "PROGRESS_MS", "STAGE_SPAN", "STAGE_WORDS",
           "ExperimentPanel", "components_text", "domains_tooltip", "COLUMNS", "SORT_ROLE", "TaskFilter",
           "TaskTableModel", "leak_tip"]
