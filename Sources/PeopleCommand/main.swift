print("people")
