"""Systems that answer a task's prompt with a flow program (issue 34), and runs of them.

- :mod:`.base`: the ``System`` protocol, ``Prompt``, ``Params`` and ``Answer`` (errors are values);
- :mod:`.openai_compat`: any OpenAI-compatible chat-completions endpoint (needs the ``[models]`` extra);
- :mod:`.command`: a local command, the prompt on stdin and the answer on stdout;
- :mod:`.baselines`: ``nearest`` (the closest curriculum program by BM25 over task texts) and ``empty``;
- :mod:`.corpus`: the curriculum and the test tasks as folders of dataset files;
- :mod:`.prompts`: the Jinja2 prompt template; :mod:`.runlog`: the JSONL log a run resumes from;
- :mod:`.run`: k attempts per task on worker threads, and the experiment file they give.

Pure Python, no Qt.
"""
