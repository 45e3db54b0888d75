"""Node icons: every library type has an icon from the shipped icon fonts, the canvas draws it in
the node's band (not a letter), the palette lists types with it, and the toolbar has icons."""
from __future__ import annotations

import qtawesome
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from gindex_studio.core.flows.flow import flow_from_nodes
from gindex_studio.ui import icons
from gindex_studio.ui.canvas import geometry as g


def test_every_library_type_has_an_icon_in_the_installed_fonts(library, qtbot):
    for nt in library.types:
        name = icons.type_icon_name(nt.type, nt.category)
        qtawesome.icon(name)  # raises for a name the fonts lack
        assert name != icons.GENERIC, nt.type  # a type or category icon, not the catch-all
        pm = icons.type_pixmap(nt.type, nt.category, 32)
        assert pm is not None and not pm.isNull()


def _band_image(view, item) -> QImage:
    """The icon square of a node's band as drawn on screen (the view is at 100 %)."""
    body = item.mapRectToScene(item.body())
    s = g.ICON_W * 0.6
    cx, cy = body.left() + g.ICON_W / 2, body.center().y()
    top_left = view.mapFromScene(cx - s / 2, cy - s / 2)
    return view.viewport().grab().toImage().copy(top_left.x(), top_left.y(), int(s), int(s))


def _expected(type_id: str, category: str, like: QImage) -> QImage:
    img = QImage(like.size(), QImage.Format_ARGB32)
    img.fill(like.pixelColor(0, 0))
    p = QPainter(img)
    pm = icons.type_pixmap(type_id, category, 48)
    p.drawPixmap(QRectF(0, 0, img.width(), img.height()), pm, QRectF(pm.rect()))
    p.end()
    return img


def _diff(a: QImage, b: QImage) -> float:
    total = 0
    for y in range(a.height()):
        for x in range(a.width()):
            ca, cb = QColor(a.pixel(x, y)), QColor(b.pixel(x, y))
            total += abs(ca.lightness() - cb.lightness())
    return total / (a.width() * a.height())


def test_the_canvas_draws_each_node_s_icon_in_its_band(make_editor):
    ed = make_editor(flow_from_nodes([
        {"id": "d", "type": "debug", "name": "show", "x": 150, "y": 100, "wires": []},
        {"id": "t", "type": "chatbot-telegram-receive", "name": "incoming", "x": 150, "y": 220, "wires": [[]]},
    ]))
    ed.view.centerOn(150, 160)
    drawn_debug = _band_image(ed.view, ed.scene.nodes["d"])
    drawn_tg = _band_image(ed.view, ed.scene.nodes["t"])
    own = _diff(drawn_debug, _expected("debug", "common-utility", drawn_debug))
    other = _diff(drawn_debug, _expected("chatbot-telegram-receive", "chatbot", drawn_debug))
    assert own < other / 2, (own, other)
    own = _diff(drawn_tg, _expected("chatbot-telegram-receive", "chatbot", drawn_tg))
    other = _diff(drawn_tg, _expected("debug", "common-utility", drawn_tg))
    assert own < other / 2, (own, other)


def test_palette_and_toolbar_show_icons(window):
    item = window.palette.type_items["debug"]
    assert not item.icon(0).isNull()
    for aid in ("file.new", "file.open", "file.save", "edit.undo", "view.fit", "arrange.layout"):
        assert not window.actions[aid].icon().isNull(), aid
