"""Benchmark tasks: the dataset file shape ``{"title", "text", "flow", "name"}`` (spec §1).

A flow is a task when its container is ``dataset``. These helpers build the containers for
"New → Task" and for turning a bare array into a task and back. Pure Python.

>>> task_container("Reply", "When a message arrives…", "telegram").wrapper
{'title': 'Reply', 'text': 'When a message arrives…', 'flow': [], 'name': 'telegram'}
"""
from __future__ import annotations

from gindex_studio.core.flows.flow import Container, Flow

#: the dataset keys in the benchmark's order; "flow" is filled in when the file is written
TASK_KEYS = ("title", "text", "flow", "name")


def task_container(title: str = "", text: str = "", domain: str = "") -> Container:
    """A dataset container with the task's title, prompt (``text``) and domain (``name``)."""
    return Container("dataset", {"title": title, "text": text, "flow": [], "name": domain})


def as_task(flow: Flow) -> Container:
    """The container that makes ``flow`` a task, keeping what a Node-RED flows file had."""
    c = flow.container
    if c.kind == "dataset":
        return c
    return task_container()


def as_array() -> Container:
    """The container of a bare node array (a task's title, prompt and domain are dropped)."""
    return Container("array", None)


def new_task_flow() -> Flow:
    """An empty flow that will be saved as a task."""
    return Flow(container=task_container())
