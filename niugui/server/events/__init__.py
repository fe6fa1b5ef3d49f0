"""Events (issue 30): duplicate events and the daily challenge (and, by the same registry, Swiss
tournaments). The kinds' registry is :mod:`.kinds`; what a kind provides, :mod:`.base`; the database,
:mod:`.store`; matchpoints, :mod:`.matchpoints`; boards, :mod:`.boards`; the daily, :mod:`.daily`;
``play_event``, :mod:`.seating`; the HTTP routes, :mod:`niugui.server.routes.events`."""
