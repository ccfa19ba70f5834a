"""Announcements as Discord messages, and posting them."""
