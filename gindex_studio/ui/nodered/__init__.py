"""The studio's bridge to the real Node-RED: Deploy & run, the Debug dock, runtime problems."""
