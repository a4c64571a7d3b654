[package]
name = "crossplane-xnetwork-kcl-function"
version = "0.0.2"

