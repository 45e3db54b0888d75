"""The Qt desktop studio. Never imported by core or cli (except the ``gui`` entry)."""
