"""Go behaviour that crossfn must reproduce byte for byte, in pure Python.

Crossplane and its functions are Go programs; where their output depends on
Go's standard library (formatting, JSON, regular expressions, case mapping) or
on Kubernetes' libraries (quantities), a port must produce the same bytes and
the same error texts. Each module emulates one Go package or concept:

* :mod:`.values`: the Go value model (int64 vs float64 vs Go ``int``), ``%T`` names;
* :mod:`.gofunc`: a Go function's signature, as ``text/template`` checks and calls it;
* :mod:`.template`: Go's ``text/template`` (lexer, parser, executor, builtins), as
  function-go-templating runs it, for each Go release it was built with;
* :mod:`.strconv`: number formatting/parsing and quoting;
* :mod:`.fmt`: ``Sprintf``, ``%v``, ``%q`` and ``%#v``;
* :mod:`.field`: apimachinery's ``field.Error``, as the API server and functions print it;
* :mod:`.json`: ``encoding/json`` Marshal, MarshalIndent and Unmarshal;
* :mod:`.tabwriter`: ``text/tabwriter``'s aligned columns (``crossplane trace``'s tree);
* :mod:`.dot`: Graphviz text as ``github.com/emicklei/dot`` writes it (``crossplane trace -o dot``);
* :mod:`.jsonstruct`: decoding JSON into a Go struct, as function-sdk-go's ``GetInput`` does
  (``encoding/json`` or go-json-experiment, strict or not), with the decoders' error texts, and
  marshalling it back (a typed round trip, as ``crossplane render op`` prints an Operation);
* :mod:`.protojson`: protobuf-go's ``protojson.Unmarshal`` against one build's fields, its errors;
* :mod:`.regexp`: ``regexp`` over RE2 (its C++ log silenced);
* :mod:`.strings`: per-rune ``ToUpper``/``ToLower``, ``Title``, ``TrimSpace``, ``Split``, ``Repeat``;
* :mod:`.unicode`: ``unicode``'s rune classes and simple case mappings;
* :mod:`.base64`: ``StdEncoding.DecodeString`` with Go's error offsets;
* :mod:`.base32`: ``base32.StdEncoding``, with Go's error offsets;
* :mod:`.url`: ``net/url``'s ``Parse`` and ``URL.String``;
* :mod:`.path`: ``path``'s lexical ``Clean``, ``Base``, ``Dir``, ``Ext``;
* :mod:`.quantity`: Kubernetes ``resource.Quantity``;
* :mod:`.cel`: the one CEL interpreter (cel-python, the ``cel`` extra), loaded once, and cel-go's
  heterogeneous equality;
* :mod:`.celcheck`: cel-go's type check (an expression's result type, its check errors);
* :mod:`.celcost`: cel-go's cost limit on a CEL evaluation, as Kubernetes sets it;
* :mod:`.time`: ``time.ParseDuration``, and ``time.Time`` with Go's layouts (``_timelayout``);
* :mod:`.cron`: robfig/cron's ``ParseStandard`` and ``Next``, as CronOperations schedule;
* :mod:`.sprig`: Sprig v3's template functions, as function-go-templating gives them;
* :mod:`.yaml_loader`: reading YAML as sigs.k8s.io/yaml does (go-yaml v2's scalar resolution,
  no timestamps), within go-yaml's bounds (depth, aliases) and a file size cap; ``_yaml_events``
  is its fast path;
* :mod:`.yaml_emitter`: writing YAML byte for byte as sigs.k8s.io/yaml does; it quotes by the
  same go-yaml v2 resolution (``_yaml_resolve``) the loader reads with.

Failures raise :class:`crossfn.errors.GoError` whose text is Go's, so callers
wrap it exactly as the Go code they port does. This layer sits just above the
protocol and imports nothing else from crossfn but :mod:`crossfn.errors` and
:mod:`crossfn.extras`; ``yaml_loader`` needs PyYAML, ``cel`` cel-python and
Sprig's key, certificate and bcrypt functions the ``crypto`` extra (each on
first use); the engine imports none of them.
"""

__all__: list[str] = []
