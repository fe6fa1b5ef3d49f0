"""The online game server (``niugui serve``): protocol models, table runtime, store, HTTP/WebSocket app."""
