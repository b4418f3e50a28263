#!/bin/sh
# seeds.sh TARGET DIR: fill DIR with the seed corpus of fuzz target TARGET:
# testdata/fuzz/TARGET/* plus every .amber file under testdata/.
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$2"
[ -d "testdata/fuzz/$1" ] && cp testdata/fuzz/"$1"/* "$2"/ 2>/dev/null
find testdata -name '*.amber' -size -2M -exec cp {} "$2"/ \; 2>/dev/null
exit 0
