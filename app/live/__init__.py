"""Live classes: a teacher's page drives a room, students' pages follow it.

rooms.py holds what a room is (code, secret, latest view and its version), the limits, the
in-process store and each worker's Hub of open streams; redis_rooms.py keeps the same rooms in
Redis so that any number of workers and machines serve one room. No HTTP here: app/web/live.py
translates requests to these calls.
"""
