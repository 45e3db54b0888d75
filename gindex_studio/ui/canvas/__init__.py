"""The node canvas: scene, view, node/port/wire items and one interaction class per gesture."""
