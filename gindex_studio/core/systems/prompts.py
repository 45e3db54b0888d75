"""Prompts: a Jinja2 template (default ``resources/prompts/default.j2``; the user may pass their own)
rendered per task with its text, optional k-shot examples from the curriculum and an optional
summary of the node library.

Examples: ``shots`` curriculum programs of the task's own domain (first files first), or, with
``from_nearest`` or when the domain is not in the curriculum, the programs whose task texts are
nearest (BM25).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from gindex_studio.core.benchmark.validate import ExperimentError
from gindex_studio.core.systems.base import Prompt
from gindex_studio.core.systems.corpus import Entry
from gindex_studio.core.systems.retrieval import Retriever
from gindex_studio.paths import RESOURCES

DEFAULT_TEMPLATE = RESOURCES / "prompts" / "default.j2"


def compact_flow(source: str) -> str:
    """A program file's flow as one line of JSON (the node array of a dataset file)."""
    value = orjson.loads(source)
    if isinstance(value, dict):
        value = value.get("flow", value.get("flows", value))
    return orjson.dumps(value).decode()


def library_summary() -> str:
    """One line per node type of the bundled library: ``- type: first sentence of its description``."""
    from gindex_studio.core.flows.library import NodeLibrary

    lines = []
    for t in NodeLibrary.bundled().types:
        if not t.config:
            first = t.description.split(". ")[0].strip().rstrip(".")
            lines.append(f"- {t.type}: {first}" if first else f"- {t.type}")
    return "\n".join(lines)


@dataclass
class PromptSpec:
    """How prompts are made: the template file, the number of examples, where they come from, and
    whether the node-library summary is included."""

    template: Path = DEFAULT_TEMPLATE
    shots: int = 0
    from_nearest: bool = False
    library: bool = False


class PromptMaker:
    """Renders the template for each task (the template and curriculum read once)."""

    def __init__(self, spec: PromptSpec, curriculum: list[Entry]):
        import jinja2

        try:
            text = spec.template.read_text(encoding="utf-8")
            self._template = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True).from_string(text)
        except OSError as e:
            raise ExperimentError(f"{spec.template}: cannot read the template ({e.strerror})") from None
        except jinja2.TemplateSyntaxError as e:
            raise ExperimentError(f"{spec.template}:{e.lineno}: template error: {e.message}") from None
        self.spec = spec
        self.template_sha256 = hashlib.sha256(text.encode()).hexdigest()
        self._curriculum = curriculum
        self._index = Retriever(curriculum) if spec.shots else None
        self._library = library_summary() if spec.library else ""

    def examples(self, task: Entry) -> list[Entry]:
        """The k-shot examples of ``task`` (see the module's docstring)."""
        k = self.spec.shots
        if not k:
            return []
        same = [e for e in self._curriculum if e.domain == task.domain]
        return same[:k] if same and not self.spec.from_nearest else self._index.nearest(task.text, k)

    def prompt(self, task: Entry) -> Prompt:
        """The prompt of ``task``. Raises ExperimentError for a template that uses an unknown name."""
        import jinja2

        examples = [{"domain": e.domain, "text": e.text, "flow": compact_flow(e.source)} for e in self.examples(task)]
        try:
            text = self._template.render(task={"id": task.id, "domain": task.domain, "text": task.text},
                                         examples=examples, library=self._library)
        except jinja2.TemplateError as e:
            raise ExperimentError(f"{self.spec.template}: template error: {e}") from None
        return Prompt(task.id, task.text, text)
