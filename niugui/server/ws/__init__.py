"""The WebSocket at ``/ws``: what a frame is (:mod:`.frames`), one client's connection and the open
connections per account and address (:mod:`.connection`), and the endpoint that authenticates,
reads, checks fair use and hands each request to the hub (:mod:`.endpoint`)."""
