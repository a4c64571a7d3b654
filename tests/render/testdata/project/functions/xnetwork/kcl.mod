[package]
name = "xnetwork"
version = "0.0.1"

[dependencies]
models = { path = "./model" }
