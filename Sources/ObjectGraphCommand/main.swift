print("objectgraph")
