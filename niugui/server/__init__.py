"""The online game server (``niugui serve``): protocol models, tables, event writer, store, the app."""
