"""``niugui serve`` as one node of a cluster: tables shared by every node through Redis and one
database (PostgreSQL), each table owned by exactly one node at a time.

- :mod:`.settings`: what a node is told (Redis URL, key prefix, lease time).
- :mod:`.lease`: one owner per table — a lease in Redis with a fencing token that the store checks.
- :mod:`.bus`: the nodes' messages over Redis pub/sub (requests forwarded to owners, their answers,
  the frames an owner built for another node's connections, ownership changes).
- :mod:`.node`: the glue — hooks of the hub (forwarding, adoption of orphaned tables, drain).

Without ``--redis`` none of this runs: the server is the single process it always was.
"""
