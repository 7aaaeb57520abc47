print("webarc")
