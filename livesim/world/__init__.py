"""The world: catalogue, room, viewers, comments and their intents, phrasing, and each request's ground truth."""
