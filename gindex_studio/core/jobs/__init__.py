"""The top of the core: the calls the studio runs in worker processes, which may use every core package."""
