"""Swiss tournaments for people (issue 30): pure pairing and standings (``pairing``, ``standings``),
and the "swiss" event kind on the server (``kind``)."""
