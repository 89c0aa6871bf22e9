#!/bin/sh
# Print a short fingerprint of a key identifier, to record it before and after a rotation.
if [ -z "$1" ]; then
  echo "usage: fingerprint.sh KEY-ID" >&2
  exit 2
fi
printf '%s' "$1" | sha256sum | cut -c1-16
