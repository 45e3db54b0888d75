"""The Flatland compare window: the task image, the reference program's drawing and the generated
program's drawing side by side, an overlay of their difference, and Δ (flatland profile) with the
image similarity, all from the core."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from gindex_studio.core.flatland.render import image_similarity
from gindex_studio.core.flatland.score import draw, score

from gindex_studio.ui.flatland.drawing import ImageView, bool_image

BOTH, REF_ONLY, GEN_ONLY = (0, 0, 0), (214, 39, 40), (31, 119, 180)


def overlay_image(ref: np.ndarray, gen: np.ndarray) -> np.ndarray:
    """RGB array: ink in both black, reference only red, generated only blue, else white."""
    out = np.full(ref.shape + (3,), 255, dtype=np.uint8)
    out[ref & gen] = BOTH
    out[ref & ~gen] = REF_ONLY
    out[gen & ~ref] = GEN_ONLY
    return out


def rgb_image(a: np.ndarray) -> QImage:
    a = np.ascontiguousarray(a)
    h, w, _ = a.shape
    return QImage(a.data, w, h, 3 * w, QImage.Format_RGB888).copy()


class FlatlandCompare(QWidget):
    """Compare a generated program with a reference. ``task``: the task's image (a boolean array;
    default the reference's drawing)."""

    def __init__(self, reference, generated, task: np.ndarray | None = None, title: str = "", parent=None,
                 syntax=None):
        super().__init__(parent)
        self.setWindowTitle(title or "Flatland compare")
        self.result = score(reference, generated)
        self.ref_image = draw(reference)
        self.gen_image = draw(generated)
        self.task_image = self.ref_image if task is None else np.asarray(task, bool)
        self.similarity = image_similarity(self.task_image, self.gen_image)
        self.views = {
            "task": ImageView("Task image"),
            "reference": ImageView("Reference program"),
            "generated": ImageView("Generated program"),
            "overlay": ImageView("Difference"),
        }
        self.views["task"].set_image(bool_image(self.task_image))
        self.views["reference"].set_image(bool_image(self.ref_image))
        self.views["generated"].set_image(bool_image(self.gen_image))
        self.views["overlay"].set_image(rgb_image(overlay_image(self.ref_image, self.gen_image)))
        r = self.result
        text = (f"<b>Δ = {r.delta:.4f}</b> (θ = {r.theta:.4f}, flatland profile, {'exact' if r.exact else 'not exact'}; "
                f"S = {r.s_exact} over {r.n_reference}·{r.n_generated} nodes)   "
                f"<b>image similarity = {self.similarity:.4f}</b>   mapped {len(r.mapping)}, "
                f"missing {len(r.missing_nodes)}, extra {len(r.extra_nodes)}<br>"
                f"Difference: <span style='color:rgb{REF_ONLY}'>red</span> reference only, "
                f"<span style='color:rgb{GEN_ONLY}'>blue</span> generated only, black both")
        if syntax is not None:
            text += f"<br>syntax: line {syntax.line}, column {syntax.column}: {syntax.message}"
        self.summary = QLabel(text)
        self.summary.setWordWrap(True)
        grid = QGridLayout(self)
        for k, name in enumerate(("task", "reference", "generated", "overlay")):
            grid.addWidget(self.views[name], 0, k)
        grid.addWidget(self.summary, 1, 0, 1, 4)
        self.resize(1100, 380)
