"""Participants (white agents): each an A2A server answering assessment tasks."""
