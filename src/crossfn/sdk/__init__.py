"""The crossfn SDK: write, test and serve a composition function in Python.

Modules, named as in the official Python SDK so porting is an import change:
``request`` (read a RunFunctionRequest), ``response`` (build a
RunFunctionResponse), ``resource`` (dicts, Structs, conditions, names),
``function`` (what counts as a function), ``runtime`` (serve it), ``testing``
(test it). Import the modules: ``from crossfn.sdk import request, response``.
"""

__all__: list[str] = []
