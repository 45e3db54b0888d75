"""Flow programs: Node-RED JSON, the node library, lenient reading, checks, safe files."""
