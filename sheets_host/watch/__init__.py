"""`watch`: checks, locks, resolves and reminders on the deadlines, within Google's quota."""
