// What `vault --version` prints, without anything vault links.
print("floor 1")
