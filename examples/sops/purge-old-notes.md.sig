{
  "algorithm": "ed25519",
  "key": "f21515a12225c0d4",
  "signature": "rDNSUgC8J1QanFXzj6uBWcVMsSFaJpg/a+QgC8+KGn06ULY+xvJ83oxCUQtfK3mvoS6zjaH88d7cBKrK66leBw=="
}
