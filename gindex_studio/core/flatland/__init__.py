"""Flatland, the paper's toy environment (section 5, Figs. 14-15): programs of pen primitives that
draw 128×128 images, resolved, run, drawn and scored without Qt or Tk.

Modules: ``sexpr`` / ``expr`` (LISP reading and evaluation), ``fbp`` / ``lisp`` (the two text
forms), ``resolve`` (sub-flows and includes into one flat program), ``program`` (flat programs and
their JSON), ``run`` / ``render`` (execution and drawing), ``weights`` / ``score`` (the flatland Δ
profile), ``augment`` / ``dataset`` (seeded variants and the paper's experiment).
"""

#: Flatland's name where it names the world, not its scoring profile: the folder of its resources,
#: the node library's category of its node types, its command
WORLD = "flatland"
#: the suffixes of Flatland program files, in the order a folder prefers them (one file per stem)
SUFFIXES = (".fbp", ".lisp", ".json")
