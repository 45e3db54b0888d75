"""The bridge to the real Node-RED: install it (``install``), run or reach one (``runtime``), deploy a
flow and read what Node-RED says about each node (``deploy``), and compare two programs' behaviour on
the same inputs (``probe``). Pure Python (no Qt); Node.js ≥ 18 must be on PATH."""
