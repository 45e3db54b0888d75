"""Pure-Python scoring core: flows, node library, Δ, Ω and the g-index. Never imports Qt."""
