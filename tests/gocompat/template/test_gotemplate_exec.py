"""Go's text/template executor: Go's exec tests (exec_test.go), re-expressed for the value model.

Data is Go's ``tVal`` as a map (:data:`gotemplate_cases.T`): its fields are
keys, and its slices and maps hold their elements in interfaces, as decoded
JSON does, so where Go's test reads a struct field this one reads a map key,
and errors name ``interface {}`` where Go's name a field's type. Every error
is Go's full message.
"""

from __future__ import annotations

from typing import Any

import pytest
from gotemplate_cases import FUNCS, G, T, case, run

from crossfn.gocompat.template import ExecError, GoRelease, OptionError, Template

E = "ERROR: template: t:1:"

EXEC = [
    # Trivial cases.
    case("Empty", "", "", "nothing to do"),
    case("Text", "some text", "some text", "text is copied"),
    case("NilAction", "{{nil}}", E + '2: executing "t" at <nil>: nil is not a command', "nil alone"),
    # Ideal constants.
    case("IdealInt", "{{typeOf 3}}", "int", "an integer constant is an int"),
    case("IdealFloat", "{{typeOf 1.0}}", "float64", "a point makes a float64"),
    case("IdealExpFloat", "{{typeOf 1e1}}", "float64", "an exponent makes a float64"),
    case("IdealComplex", "{{typeOf 1i}}", "complex128", "an i makes a complex128"),
    case("IdealBigInt", "{{typeOf 0x7fffffffffffffff}}", "int", "the largest int"),
    case(
        "IdealTooBig",
        "{{typeOf 0x8000000000000000}}",
        E + '9: executing "t" at <0x8000000000000000>: 0x8000000000000000 overflows int',
        "one more is not an int",
    ),
    # Fields on maps.
    case("MapOne", "{{.MSI.one}}", "1", "a key"),
    case("MapNo", "{{.MSI.NO}}", "<no value>", "a missing key prints <no value>"),
    case("MapInterface", "{{.MXI.one}}", "1", "a key of a map of interfaces"),
    case(
        "MapWithArgs",
        "{{.MSI.one 1}}",
        E + '6: executing "t" at <.MSI.one>: one is not a method but has arguments',
        "a key takes no arguments",
    ),
    case("LowerCaseKey", "{{.cause}}", "neglect", "keys need not be exported", {"cause": "neglect"}),
    # Dot of every kind.
    case("DotInt", "<{{.}}>", "<13>", "an int", G(13)),
    case("DotFloat", "<{{.}}>", "<15.1>", "a float64", 15.1),
    case("DotBool", "<{{.}}>", "<true>", "a bool", True),
    case("DotComplex", "<{{.}}>", "<(16.2-17i)>", "a complex128", 16.2 - 17j),
    case("DotString", "<{{.}}>", "<hello>", "a string", "hello"),
    case("DotSlice", "<{{.}}>", "<[-1 -2 -3]>", "a slice", [G(-1), G(-2), G(-3)]),
    case("DotMap", "<{{.}}>", "<map[two:22]>", "a map", {"two": G(22)}),
    # Variables.
    case("DollarInt", "{{$}}", "123", "$ is the data", G(123)),
    case("DollarField", "{{$.I}}", "17", "a field of $"),
    case("DollarFields", "{{$.U.V}}", "v", "fields of $"),
    case("DeclareInAction", "{{$x := $.U.V}}{{$x}}", "v", "a declaration prints nothing"),
    case("Assignment", "{{$x := 2}}{{$x = 3}}{{$x}}", "3", "assignment"),
    case(
        "NestedAssignment", "{{$x := 2}}{{if true}}{{$x = 3}}{{end}}{{$x}}", "3", "an assignment reaches out"
    ),
    case(
        "AssignLastDeclaration",
        "{{$x := 1}}{{if true}}{{$x := 2}}{{if true}}{{$x = 3}}{{end}}{{end}}{{$x}}",
        "1",
        "assignment changes the innermost declaration",
    ),
    # Empty interfaces holding values.
    case("EmptyNil", "{{.Empty0}}", "<no value>", "a nil interface prints <no value>"),
    case("EmptyInt", "{{.Empty1}}", "3", "an int inside"),
    case("EmptyString", "{{.Empty2}}", "empty2", "a string inside"),
    case("EmptySlice", "{{.Empty3}}", "[7 8]", "a slice inside"),
    case("EmptyMapField", "{{.Empty4.V}}", "UinEmpty", "a field of a map inside"),
    case("FieldOnNil", "{{.foo}}", "<no value>", "a field of no data", None),
    case("FieldOnParenNil", "{{(.).foo}}", "<no value>", "a field of parenthesized no data", None),
    case(
        "NonFunction",
        "{{1 2}}",
        E + '2: executing "t" at <1>: can\'t give argument to non-function 1',
        "a constant takes no arguments",
    ),
    case(
        "ParenNonFunction",
        "{{(1) 2}}",
        E + '2: executing "t" at <(1) 2>: can\'t give argument to non-function 1',
        "a parenthesized constant takes none either",
    ),
    case("ParenNoArgs", "{{(1)}}", "1", "a parenthesized constant alone is fine"),
    # Pipelines and parentheses.
    case(
        "ParensInPipeline",
        "{{printf `%d %d %d` (1) (2 | add 3) (add 4 (add 5 6))}}",
        "1 5 15",
        "nested calls",
    ),
    case("DollarInParen", "{{($).X}}", "x", "a field of a parenthesized $"),
    case("DollarPipeInParen", "{{($ | echo).X}}", "x", "a field of a pipeline's result"),
    case(
        "MakemapField",
        '{{(makemap "up" "down" "left" "right").left}}',
        "right",
        "a field of a function result",
    ),
    case(
        "FunctionField", "{{mapOfThree.three}}-{{(mapOfThree).three}}", "3-3", "fields after a function name"
    ),
    # If.
    case("IfTrue", "{{if true}}TRUE{{end}}", "TRUE", "true"),
    case("IfFalse", "{{if false}}TRUE{{else}}FALSE{{end}}", "FALSE", "false"),
    case("IfNil", "{{if nil}}TRUE{{end}}", E + '5: executing "t" at <nil>: nil is not a command', "nil"),
    case("If1", "{{if 1}}NON-ZERO{{else}}ZERO{{end}}", "NON-ZERO", "non-zero int"),
    case("If0", "{{if 0}}NON-ZERO{{else}}ZERO{{end}}", "ZERO", "zero int"),
    case("If15", "{{if 1.5}}NON-ZERO{{else}}ZERO{{end}}", "NON-ZERO", "non-zero float"),
    case("If00", "{{if .FloatZero}}NON-ZERO{{else}}ZERO{{end}}", "ZERO", "zero float"),
    case("If15i", "{{if 1.5i}}NON-ZERO{{else}}ZERO{{end}}", "NON-ZERO", "non-zero complex"),
    case("If00i", "{{if .ComplexZero}}NON-ZERO{{else}}ZERO{{end}}", "ZERO", "zero complex"),
    case("IfEmptyString", "{{if ``}}NON-EMPTY{{else}}EMPTY{{end}}", "EMPTY", "empty string"),
    case("IfString", "{{if `notempty`}}NON-EMPTY{{else}}EMPTY{{end}}", "NON-EMPTY", "string"),
    case("IfEmptySlice", "{{if .SIEmpty}}NON-EMPTY{{else}}EMPTY{{end}}", "EMPTY", "empty slice"),
    case("IfSlice", "{{if .SI}}NON-EMPTY{{else}}EMPTY{{end}}", "NON-EMPTY", "slice"),
    case("IfEmptyMap", "{{if .MSIEmpty}}NON-EMPTY{{else}}EMPTY{{end}}", "EMPTY", "empty map"),
    case("IfMap", "{{if .MSI}}NON-EMPTY{{else}}EMPTY{{end}}", "NON-EMPTY", "map"),
    case("IfMapUnset", "{{if .MXI.none}}NON-ZERO{{else}}ZERO{{end}}", "ZERO", "a missing key is false"),
    case("IfNotMapUnset", "{{if not .MXI.none}}ZERO{{else}}NON-ZERO{{end}}", "ZERO", "and not of it true"),
    case("IfNilInterface", "{{if .Empty0}}non-nil{{else}}nil{{end}}", "nil", "a nil interface is false"),
    case("IfWithVars", "{{if $x := true}}{{with $y := .I}}{{$x}},{{$y}}{{end}}{{end}}", "true,17", "scopes"),
    case(
        "IfWithShadow",
        "{{if $x := true}}{{with $x := .I}}{{$x}},{{end}}{{$x}}{{end}}",
        "17,true",
        "shadowing",
    ),
    case("IfElseIf", "{{if false}}FALSE{{else if true}}TRUE{{end}}", "TRUE", "else if"),
    case("IfElseChain", "{{if eq 1 3}}1{{else if eq 2 3}}2{{else if eq 3 3}}3{{end}}", "3", "a chain"),
    # Print and friends.
    case("Print", '{{print "hello, print"}}', "hello, print", "print"),
    case("Print123", "{{print 1 2 3}}", "1 2 3", "spaces between non-strings"),
    case("PrintNil", "{{print nil}}", "<nil>", "print of nil"),
    case("Println", "{{println 1 2 3}}", "1 2 3\n", "println"),
    case("PrintfInt", '{{printf "%04x" 127}}', "007f", "printf of an int"),
    case("PrintfFloat", '{{printf "%g" 3.5}}', "3.5", "printf of a float"),
    case("PrintfComplex", '{{printf "%g" 1+7i}}', "(1+7i)", "printf of a complex"),
    case("PrintfString", '{{printf "%s" "hello"}}', "hello", "printf of a string"),
    case("PrintfFunction", '{{printf "%#q" zeroArgs}}', "`zeroArgs`", "a function's result as an argument"),
    case("PrintfField", '{{printf "%s" .U.V}}', "v", "a field as an argument"),
    case("PrintfDot", '{{with .I}}{{printf "%d" .}}{{end}}', "17", "dot as an argument"),
    case("PrintfVar", '{{with $x := .I}}{{printf "%d" $x}}{{end}}', "17", "a variable as an argument"),
    case("PrintfMissing", '{{printf "%v" .Missing}}', "<nil>", "a missing key is a nil argument"),
    case(
        "PrintfMapVerb", '{{printf "%d" .MSIone}}', "map[%!d(string=one):1]", "the verb applies to keys too"
    ),
    # HTML, JavaScript, URL query.
    case(
        "HTML",
        '{{html "<script>alert(\\"XSS\\");</script>"}}',
        "&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;",
        "html escapes",
    ),
    case(
        "HTMLPipeline",
        '{{printf "<script>alert(\\"XSS\\");</script>" | html}}',
        "&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;",
        "html at the end of a pipeline",
    ),
    case("HTMLNil", "{{html .Empty0}}", "&lt;no value&gt;", "a nil argument prints <no value>"),
    case("JS", "{{js .}}", "It\\'d be nice.", "js escapes quotes", "It'd be nice."),
    case(
        "URLQuery",
        '{{"http://www.example.org/"|urlquery}}',
        "http%3A%2F%2Fwww.example.org%2F",
        "query escape",
    ),
    # Booleans.
    case("Not", "{{not true}} {{not false}}", "false true", "not"),
    case(
        "And", "{{and false 0}} {{and 1 0}} {{and 0 true}} {{and 1 1}}", "false 0 0 1", "the deciding value"
    ),
    case("Or", "{{or 0 0}} {{or 1 0}} {{or 0 true}} {{or 1 1}}", "0 1 true 1", "the deciding value"),
    case("OrShortCircuit", "{{or 0 1 (die)}}", "1", "or stops at the first true"),
    case("AndShortCircuit", "{{and 1 0 (die)}}", "0", "and stops at the first false"),
    case(
        "OrShortCircuit2",
        "{{or 0 0 (die)}}",
        E + '10: executing "t" at <die>: error calling die: die',
        "or reaches a panicking function",
    ),
    case("AndPipeTrue", "{{1 | and 1}}", "1", "the piped value is the last argument"),
    case("AndPipeFalse", "{{0 | and 1}}", "0", "piped and"),
    case("OrPipeTrue", "{{1 | or 0}}", "1", "piped or"),
    case("OrPipeFalse", "{{0 | or 0}}", "0", "piped or, false"),
    case("AndUndef", "{{and 1 .Unknown}}", "<no value>", "a missing value decides"),
    case("OrUndef", "{{or 0 .Unknown}}", "<no value>", "a missing value decides"),
    case("BooleanIf", "{{if and true 1 `hi`}}TRUE{{else}}FALSE{{end}}", "TRUE", "and in if"),
    case(
        "BooleanIfNot", "{{if and true 1 `hi` | not}}TRUE{{else}}FALSE{{end}}", "FALSE", "not in a pipeline"
    ),
    case("BooleanIfPipe", "{{if true | not | and 1}}TRUE{{else}}FALSE{{end}}", "FALSE", "and in a pipeline"),
    case("OrAsIfTrue", '{{or .SI "slice is empty"}}', "[3 4 5]", "or gives a default"),
    case("OrAsIfFalse", '{{or .SIEmpty "slice is empty"}}', "slice is empty", "the default"),
    # Indexing.
    case("Index0", "{{index .SI 0}}", "3", "a slice element"),
    case("Index1", "{{index .SI 1}}", "4", "another"),
    case(
        "IndexHuge",
        "{{index .SI 10}}",
        E + '2: executing "t" at <index .SI 10>: error calling index: index out of range: 10',
        "past the end",
    ),
    case(
        "IndexAtLen",
        "{{index .SI 3}}",
        E + '2: executing "t" at <index .SI 3>: error calling index: reflect: slice index out of range',
        "Go checks index <= len, then reflect panics at len",
    ),
    case(
        "IndexWrong",
        "{{index .SI `hello`}}",
        E
        + '2: executing "t" at <index .SI `hello`>: error calling index: cannot index slice/array with type string',
        "a string index",
    ),
    case(
        "IndexNil",
        "{{index .SI nil}}",
        E + '2: executing "t" at <index .SI nil>: error calling index: cannot index slice/array with nil',
        "a nil index",
    ),
    case("IndexMapOne", "{{index .MSI `one`}}", "1", "a map element"),
    case("IndexMapMissing", "{{index .MSI `XXX`}}", "<no value>", "a missing key: a nil interface"),
    case(
        "IndexMapNil",
        "{{index .MSI nil}}",
        E
        + '2: executing "t" at <index .MSI nil>: error calling index: value is nil; should be of type string',
        "a nil key",
    ),
    case(
        "IndexMapWrong",
        "{{index .MSI 10}}",
        E + '2: executing "t" at <index .MSI 10>: error calling index: value has type int; should be string',
        "an int key",
    ),
    case("DoubleIndex", "{{index .SMSI 1 `eleven`}}", "11", "two indexes"),
    case(
        "IndexUntypedNil",
        "{{index nil 1}}",
        E + '2: executing "t" at <index nil 1>: error calling index: index of untyped nil',
        "index of nil",
    ),
    case("IndexInterface", "{{index .Empty3 0}}", "7", "a slice in an interface"),
    case("IndexString", "{{index .S 0}}", "120", "a string's byte"),
    # Slicing.
    case("SliceAll", "{{slice .SI}}", "[3 4 5]", "x[:]"),
    case("SliceFrom", "{{slice .SI 1}}", "[4 5]", "x[1:]"),
    case("SliceFromTo", "{{slice .SI 1 2}}", "[4]", "x[1:2]"),
    case(
        "SliceNegative",
        "{{slice .SI -1}}",
        E + '2: executing "t" at <slice .SI -1>: error calling slice: index out of range: -1',
        "negative",
    ),
    case(
        "SliceBackwards",
        "{{slice .SI 2 1}}",
        E + '2: executing "t" at <slice .SI 2 1>: error calling slice: invalid slice index: 2 > 1',
        "i > j",
    ),
    case(
        "SliceThreeBackwards",
        "{{slice .SI 2 2 1}}",
        E + '2: executing "t" at <slice .SI 2 2 1>: error calling slice: invalid slice index: 2 > 1',
        "j > k",
    ),
    case(
        "SliceOutOfRange",
        "{{slice .SI 4 5}}",
        E + '2: executing "t" at <slice .SI 4 5>: error calling slice: index out of range: 4',
        "past the end",
    ),
    case("SliceString", "{{slice .S}}", "xyz", "a string"),
    case("SliceStringFrom", "{{slice .S 1}}", "yz", "a string from 1"),
    case("SliceStringFromTo", "{{slice .S 1 2}}", "y", "a string from 1 to 2"),
    case(
        "SliceStringOutOfRange",
        "{{slice .S 1 5}}",
        E + '2: executing "t" at <slice .S 1 5>: error calling slice: index out of range: 5',
        "past a string's end",
    ),
    case(
        "SliceString3",
        "{{slice .S 1 2 2}}",
        E + '2: executing "t" at <slice .S 1 2 2>: error calling slice: cannot 3-index slice a string',
        "three indexes on a string",
    ),
    case("SliceInterface", "{{slice .Empty3 0 1}}", "[7]", "a slice in an interface"),
    # Len.
    case("LenSlice", "{{len .SI}}", "3", "a slice"),
    case("LenMap", "{{len .MSI }}", "3", "a map"),
    case(
        "LenInt", "{{len 3}}", E + '2: executing "t" at <len 3>: error calling len: len of type int', "an int"
    ),
    case(
        "LenNilInterface",
        "{{len .Empty0}}",
        E + '2: executing "t" at <len .Empty0>: error calling len: len of nil pointer',
        "a nil interface",
    ),
    case(
        "LenMissing",
        "{{len .Missing}}",
        E
        + '2: executing "t" at <len .Missing>: error calling len: reflect: call of reflect.Value.Type on zero Value',
        "no value at all: Go's reflect panics, and the panic is the error",
    ),
    case("LenInterface", "{{len .Empty3}}", "2", "a slice in an interface"),
    case("LenBytes", "{{len `héllo`}}", "6", "a string's length is its bytes"),
    # With.
    case("WithTrue", "{{with true}}{{.}}{{end}}", "true", "true"),
    case("WithFalse", "{{with false}}{{.}}{{else}}FALSE{{end}}", "FALSE", "false"),
    case("With1", "{{with 1}}{{.}}{{else}}ZERO{{end}}", "1", "one"),
    case("With0", "{{with 0}}{{.}}{{else}}ZERO{{end}}", "ZERO", "zero"),
    case("With15", "{{with 1.5}}{{.}}{{else}}ZERO{{end}}", "1.5", "a float"),
    case("With15i", "{{with 1.5i}}{{.}}{{else}}ZERO{{end}}", "(0+1.5i)", "a complex"),
    case("WithEmptyString", "{{with ``}}{{.}}{{else}}EMPTY{{end}}", "EMPTY", "empty string"),
    case("WithSlice", "{{with .SI}}{{.}}{{else}}EMPTY{{end}}", "[3 4 5]", "a slice"),
    case("WithMap", "{{with .MSIone}}{{.}}{{else}}EMPTY{{end}}", "map[one:1]", "a map"),
    case("WithInterfaceField", "{{with .Empty4}}{{.V}}{{end}}", "UinEmpty", "a field of dot"),
    case("WithVar", "{{with $x := .I}}{{$x}}{{end}}", "17", "a declared variable"),
    case("WithVarFields", "{{with $x := $}}{{$x.U.V}}{{end}}", "v", "fields of it"),
    case("WithVarAction", "{{with $x := $}}{{$y := $.U.V}}{{$y}}{{end}}", "v", "a declaration inside"),
    case("WithElseWith", "{{with 0}}{{.}}{{else with true}}{{.}}{{end}}", "true", "else with (Go 1.23)"),
    case(
        "WithElseWithChain",
        "{{with 0}}{{.}}{{else with false}}{{.}}{{else with `notempty`}}{{.}}{{end}}",
        "notempty",
        "a chain of else with",
    ),
    # Range.
    case("RangeSlice", "{{range .SI}}-{{.}}-{{end}}", "-3--4--5-", "dot is each element"),
    case("RangeEmpty", "{{range .SIEmpty}}-{{.}}-{{end}}", "", "nothing"),
    case("RangeElse", "{{range .SI}}-{{.}}-{{else}}EMPTY{{end}}", "-3--4--5-", "else not taken"),
    case("RangeEmptyElse", "{{range .SIEmpty}}-{{.}}-{{else}}EMPTY{{end}}", "EMPTY", "else taken"),
    case("RangeBreak", "{{range .SI}}-{{.}}-{{break}}NOTREACHED{{else}}EMPTY{{end}}", "-3-", "break stops"),
    case(
        "RangeContinue",
        "{{range .SI}}-{{.}}-{{continue}}NOTREACHED{{else}}EMPTY{{end}}",
        "-3--4--5-",
        "continue skips the rest",
    ),
    case("RangeBools", "{{range .SB}}-{{.}}-{{end}}", "-true--false-", "bools"),
    case("RangeMap", "{{range .MSI}}-{{.}}-{{end}}", "-1--3--2-", "values in key order"),
    case("RangeEmptyMap", "{{range .MSIEmpty}}-{{.}}-{{else}}EMPTY{{end}}", "EMPTY", "an empty map"),
    case(
        "RangeInterface", "{{range .Empty3}}-{{.}}-{{else}}EMPTY{{end}}", "-7--8-", "a slice in an interface"
    ),
    case("RangeNil", "{{range .Empty0}}-{{.}}-{{end}}", "", "nil ranges over nothing"),
    case("RangeVar", "{{range $x := .SI}}<{{$x}}>{{end}}", "<3><4><5>", "one variable: the element"),
    case(
        "RangeVars", "{{range $x, $y := .SI}}<{{$x}}={{$y}}>{{end}}", "<0=3><1=4><2=5>", "index and element"
    ),
    case("RangeMapVar", "{{range $x := .MSIone}}<{{$x}}>{{end}}", "<1>", "one variable on a map: the value"),
    case("RangeMapVars", "{{range $x, $y := .MSIone}}<{{$x}}={{$y}}>{{end}}", "<one=1>", "key and value"),
    case(
        "DeclareInRange", "{{range $x := .SI}}<{{$foo:=$x}}{{$x}}>{{end}}", "<3><4><5>", "declarations inside"
    ),
    case(
        "RangeAssign",
        "{{$i := 0}}{{$x := 0}}{{range $i = .AI}}{{end}}{{$i}}",
        "5",
        "range assigns (issue 56490)",
    ),
    case(
        "RangeAssignTwo",
        "{{$k := 0}}{{$v := 0}}{{range $k, $v = .AI}}{{$k}}={{$v}} {{end}}",
        "0=3 1=4 2=5 ",
        "range assigns two (issue 60801)",
    ),
    case(
        "RangeInt",
        '{{range $v := 5}}{{printf "%T%d" $v $v}}{{end}}',
        "int0int1int2int3int4",
        "an int (Go 1.24)",
    ),
    case(
        "RangeInt64", '{{range $v := .}}{{printf "%T%d" $v $v}}{{end}}', "int640int641int642", "an int64", 3
    ),
    case("RangeIntElse", "{{range $v := .}}{{$v}}{{else}}empty{{end}}", "empty", "zero iterations", 0),
    case(
        "RangeIntTwoVars",
        "{{range $i, $x := 3}}{{end}}",
        E + '18: executing "t" at <3>: can\'t use 3 to iterate over more than one variable',
        "an int gives one value",
    ),
    case(
        "RangeFloat",
        "{{range .}}{{end}}",
        E + '8: executing "t" at <.>: range can\'t iterate over 2.5',
        "a float does not range",
        2.5,
    ),
    # Numbers.
    case("Decimal", "{{print 1234}}", "1234", "decimal"),
    case("DecimalUnderscore", "{{print 12_34}}", "1234", "underscores"),
    case("Binary", "{{print 0b101}}", "5", "binary"),
    case("Octal0", "{{print 0377}}", "255", "leading-zero octal"),
    case("Octal", "{{print 0o377}}", "255", "0o octal"),
    case("Hex", "{{print 0x123}}", "291", "hex"),
    case("HexUpper", "{{print 0X123ABC}}", "1194684", "upper hex"),
    case("Float", "{{print 123.4}}", "123.4", "float"),
    case("FloatUnderscore", "{{print 0_0_1_2_3.4}}", "123.4", "float with underscores"),
    case("HexFloat", "{{print +0x1.ep+2}}", "7.5", "hex float"),
    case("PrintMulti", "{{print 1_2_3_4 7.5_00_00_00}}", "1234 7.5", "two numbers"),
    case("HexIsInt", "{{printf `%T` 0xef}}", "int", "0xef is an int, not a float (issue 8622)"),
    case("RuneIsInt", "{{eq . '.'}}", "true", "a rune compares as an int (issue 34483)", G(46)),
    # Fixed bugs: errors.
    case(
        "ConstantWithArgs",
        "{{3 2}}",
        E + '2: executing "t" at <3>: can\'t give argument to non-function 3',
        "a constant takes no arguments",
    ),
    case(
        "VariableWithArgs",
        "{{$x := 1}}{{$x 2}}",
        E + '13: executing "t" at <$x>: can\'t give argument to non-function $x',
        "a variable takes no arguments",
    ),
    case(
        "PipeIntoVariable",
        "{{$x := 1}}{{3 | $x}}",
        E + '17: executing "t" at <$x>: can\'t give argument to non-function $x',
        "nor a piped one",
    ),
    case(
        "PipedArgType",
        "{{3|oneArg}}",
        E + '4: executing "t" at <oneArg>: wrong type for value; expected string; got int',
        "a piped argument is type-checked",
    ),
    case(
        "PipedVariadicArgType",
        "{{4|dddArg 3}}",
        E + '11: executing "t" at <3>: wrong type for value; expected string; got int',
        "against the variadic element type",
    ),
    case(
        "NilChain",
        "{{(nil).True}}",
        E + '3: executing "t" at <nil>: nil is not a command',
        "no field of nil",
    ),
    case(
        "NilVariable",
        "{{$x := nil}}{{$x.anything}}",
        E + '8: executing "t" at <nil>: nil is not a command',
        "nil cannot be declared",
    ),
    case(
        "FieldOfFloat",
        '{{$x := (1.0)}}{{$y := ("hello")}}{{$x.anything}}{{$y.true}}',
        E + '38: executing "t" at <$x.anything>: can\'t evaluate field anything in type float64',
        "a float has no fields",
    ),
    case(
        "ResultType",
        "{{valueString returnInt}}",
        E + '14: executing "t" at <returnInt>: wrong type for value; expected string; got int',
        "a function's result is type-checked (issue 10800)",
    ),
    case(
        "BoolToPrintf",
        "{{true|printf}}",
        E + '7: executing "t" at <printf>: wrong type for value; expected string; got bool',
        "printf's format is a string",
    ),
    case(
        "RuneToPrintf",
        "{{'x'|printf}}",
        E + '6: executing "t" at <printf>: wrong type for value; expected string; got int',
        "a rune is an int",
    ),
    case(
        "ComplexToPrintf",
        "{{0i|printf}}",
        E + '5: executing "t" at <printf>: wrong type for value; expected string; got complex128',
        "0i is a complex128",
    ),
    case(
        "PipedSecondArg",
        '{{true|twoArgs "xxx"}}',
        E + '15: executing "t" at <"xxx">: wrong type for value; expected string; got bool',
        "the piped value fills the last parameter",
    ),
    case("PipedStrings", '{{"aaa" |twoArgs "bbb"}}', "twoArgs=bbbaaa", "piped value last"),
    case("PipedOneArg", '{{"aaa"|oneArg}}', "oneArg=aaa", "a piped argument"),
    case("ComplexPrintfV", '{{1+2i|printf "%v"}}', "(1+2i)", "a complex to printf"),
    case("PipedFormat", '{{"aaa"|printf }}', "aaa", "the format piped"),
    case(
        "DieDirect",
        "{{doPanic}}",
        E + '2: executing "t" at <doPanic>: error calling doPanic: custom panic string',
        "a panic is the error (TestExecutePanicDuringCall)",
    ),
    case(
        "FieldOfString",
        "{{.X.Y}}",
        E + '4: executing "t" at <.X.Y>: can\'t evaluate field Y in type interface {}',
        "a map element is an interface: its type is interface {}",
    ),
    case(
        "FieldOfNilElement",
        "{{.Empty0.Y}}",
        E + '9: executing "t" at <.Empty0.Y>: nil pointer evaluating interface {}.Y',
        "a nil element",
    ),
    case(
        "FieldOfInt",
        "{{with $x := 3}}{{.y}}{{end}}",
        E + '18: executing "t" at <.y>: can\'t evaluate field y in type int',
        "dot from a pipeline is concrete",
    ),
    case(
        "NotAFunction",
        "{{.X | printf | .U}}",
        E + '16: executing "t" at <.U>: U is not a method but has arguments',
        "a map key in a pipeline",
    ),
    case(
        "UndefinedTemplate",
        '{{template "x"}}',
        E + '11: executing "t" at <{{template "x"}}>: template "x" not defined',
        "no such template",
    ),
    case(
        "WrongArgCount",
        "{{oneArg}}",
        E + '2: executing "t" at <oneArg>: wrong number of args for oneArg: want 1 got 0',
        "too few arguments",
    ),
    case(
        "WrongVariadicCount",
        "{{dddArg}}",
        E + '2: executing "t" at <dddArg>: wrong number of args for dddArg: want at least 1 got 0',
        "too few for a variadic",
    ),
    case(
        "InvalidValue",
        "{{oneArg .Missing}}",
        E + '9: executing "t" at <.Missing>: invalid value; expected string',
        "a missing key where a string is needed",
    ),
    case(
        "NilInterfaceArg",
        "{{oneArg .Empty0}}",
        E + '9: executing "t" at <.Empty0>: wrong type for value; expected string; got interface {}',
        "a nil element where a string is needed",
    ),
    case(
        "ExpectedString",
        "{{oneArg 3}}",
        E + '9: executing "t" at <3>: expected string; found 3',
        "a constant of the wrong kind",
    ),
    case(
        "ExpectedInteger",
        "{{add `x`}}",
        E + '6: executing "t" at <`x`>: expected integer; found `x`',
        "a string for an int",
    ),
    case(
        "CannotAssignNil",
        "{{oneArg nil}}",
        E + '9: executing "t" at <nil>: cannot assign nil to string',
        "nil for a string",
    ),
]


@pytest.mark.parametrize(("text", "data", "want", "reason"), EXEC)
def test_execute(text: str, data: Any, want: str, reason: str) -> None:
    assert run(text, data) == want, reason


COMPARISONS = [
    ("eq true true", "true"),
    ("eq true false", "false"),
    ("eq 1+2i 1+2i", "true"),
    ("eq 1+2i 1+3i", "false"),
    ("eq 1.5 1.5", "true"),
    ("eq 1.5 2.5", "false"),
    ("eq 1 1", "true"),
    ("eq 1 2", "false"),
    ("eq `xy` `xy`", "true"),
    ("eq `xy` `xyz`", "false"),
    ("eq 3 4 5 6 3", "true"),
    ("eq 3 4 5 6 7", "false"),
    ("ne true true", "false"),
    ("ne 1.5 2.5", "true"),
    ("ne `xy` `xyz`", "true"),
    ("lt 1.5 1.5", "false"),
    ("lt 1.5 2.5", "true"),
    ("lt 1 2", "true"),
    ("lt `xy` `xyz`", "true"),
    ("le 1.5 1.5", "true"),
    ("le 2.5 1.5", "false"),
    ("le `xyz` `xy`", "false"),
    ("gt 2 1", "true"),
    ("gt `xy` `xyz`", "false"),
    ("ge 1.5 2.5", "false"),
    ("ge `xyz` `xy`", "true"),
    ("eq .Three 3", "true"),
    ("lt .Three 4", "true"),
    ("eq (index `x` 0) 'x'", "true"),
    ("eq (index `x` 0) 'y'", "false"),
    ("eq .Map nil", "false"),
    ("eq nil .Map", "false"),
    ("eq .Nil nil", "true"),
    ("eq .Missing nil", "true"),
    ("eq .Missing .Other", "true"),
    ("eq .Nil 0", "false"),
    ("eq 0 .Nil", "false"),
    ("ne .Missing 1", "true"),
]
CMP_DATA = {"Three": 3, "Map": {"a": 1}, "Nil": None, "List": [1]}


@pytest.mark.parametrize(("expr", "truth"), COMPARISONS, ids=[c[0] for c in COMPARISONS])
def test_comparison(expr: str, truth: str) -> None:
    """Go's TestComparison: within a kind, int against uint, and nil against anything nillable."""
    assert run(f"{{{{if {expr}}}}}true{{{{else}}}}false{{{{end}}}}", CMP_DATA) == truth


COMPARISON_ERRORS = [
    ("eq `xy` 1", "incompatible types for comparison: string and int", "incompatible types for comparison"),
    ("eq 2 2.0", "incompatible types for comparison: int and float64", "incompatible types for comparison"),
    (
        "eq .Three 3.0",
        "incompatible types for comparison: int64 and float64",
        "incompatible types for comparison",
    ),
    ("lt 1 `x`", "incompatible types for comparison: int and string", "incompatible types for comparison"),
    ("lt true true", "invalid type for comparison", "invalid type for comparison"),
    ("lt 1+0i 1+0i", "invalid type for comparison", "invalid type for comparison"),
    ("lt .Missing 1", "invalid type for comparison", "invalid type for comparison"),
    ("eq .Map .Map", "non-comparable type map[a:%!s(int64=1)]: map[string]interface {}", None),
    (
        "eq .Map .List",
        "non-comparable types map[a:%!s(int64=1)]: map[string]interface {}, []interface {}: [1]",
        None,
    ),
    ("eq 1", "missing argument for comparison", "missing argument for comparison"),
]


@pytest.mark.parametrize(("expr", "go125", "go124"), COMPARISON_ERRORS, ids=[c[0] for c in COMPARISON_ERRORS])
def test_comparison_errors(expr: str, go125: str, go124: str | None) -> None:
    """Errors of the comparisons; Go 1.25 names the types of an incompatible comparison, 1.24 does not."""
    name = expr.split(maxsplit=1)[0]
    prefix = f'ERROR: template: t:1:5: executing "t" at <{expr}>: error calling {name}: '
    text = f"{{{{if {expr}}}}}true{{{{end}}}}"
    assert run(text, CMP_DATA, go="1.25") == prefix + go125
    assert run(text, CMP_DATA, go="1.24") == prefix + (go124 or go125)


INTERFACE_VALUES = [
    ("{{index .Nil 1}}", "ERROR: index of untyped nil"),
    ("{{index .Slice 2}}", "2"),
    ("{{index .Slice .Two}}", "2"),
    ("{{call .Nil 1}}", "ERROR: call of nil"),
    ("{{and (index .Slice 0) true}}", "0"),
    ("{{and .Zero true}}", "0"),
    ("{{and (index .Slice 1) false}}", "false"),
    ("{{or (index .Slice 0) false}}", "false"),
    ("{{or (index .Slice 1) true}}", "1"),
    ("{{not (index .Slice 0)}}", "true"),
    ("{{not .One}}", "false"),
    ("{{eq (index .Slice 0) .Zero}}", "true"),
    ("{{eq (index .Slice 1) .One}}", "true"),
    ("{{ne (index .Slice 0) .Zero}}", "false"),
    ("{{ge (index .Slice 0) .One}}", "false"),
    ("{{ge (index .Slice 1) .Zero}}", "true"),
    ("{{gt (index .Slice 1) .Zero}}", "true"),
    ("{{le (index .Slice 1) .Zero}}", "false"),
    ("{{lt (index .Slice 0) .One}}", "true"),
]


@pytest.mark.parametrize(("text", "want"), INTERFACE_VALUES, ids=[c[0] for c in INTERFACE_VALUES])
def test_interface_values(text: str, want: str) -> None:
    """Go's TestInterfaceValues: the builtins look inside interfaces (elements of decoded collections)."""
    data = {"Slice": [0, 1, 2, 3], "One": 1, "Two": 2, "Nil": None, "Zero": 0}
    got = run(text, data)
    if want.startswith("ERROR: "):
        assert got.startswith("ERROR: ") and got.endswith(want.removeprefix("ERROR: "))
    else:
        assert got == want


GO_RELEASES = [
    pytest.param(
        "{{range 3}}{{.}}{{end}}",
        {"1.23": 'ERROR: template: t:1:8: executing "t" at <3>: range can\'t iterate over 3', "1.24": "012"},
        id="RangeOverInt",
    ),
    pytest.param(
        "{{with 0}}a{{else with 1}}b{{end}}",
        {"1.22": "ERROR: template: t:1: unexpected <with> in else", "1.23": "b"},
        id="ElseWith",
    ),
    pytest.param(
        "{{call .X}}",
        {
            "1.23": 'ERROR: template: t:1:2: executing "t" at <call .X>: error calling call: non-function of type string',
            "1.24": 'ERROR: template: t:1:2: executing "t" at <call .X>: error calling call: non-function .X of type string',
        },
        id="CallNamesCallee",
    ),
    pytest.param(
        "{{eq .I 1.5}}",
        {
            "1.24": 'ERROR: template: t:1:2: executing "t" at <eq .I 1.5>: error calling eq: incompatible types for comparison',
            "1.25": 'ERROR: template: t:1:2: executing "t" at <eq .I 1.5>: error calling eq: '
            "incompatible types for comparison: int and float64",
        },
        id="TypedComparisonError",
    ),
]


@pytest.mark.parametrize(("text", "by_release"), GO_RELEASES)
def test_go_release_differences(text: str, by_release: dict[str, str]) -> None:
    """Each behaviour that changed between the Go releases function-go-templating was built with."""
    for go, want in by_release.items():
        assert run(text, T, go=go) == want, go


def test_missing_key_options() -> None:
    """Go's TestMissingMapKey: default prints <no value>, zero gives the element's zero, error fails."""
    data = {"x": 99}
    assert run("{{.x}} {{.y}}", data) == "99 <no value>"
    assert run("{{.x}} {{.y}}", data, options=("missingkey=default",)) == "99 <no value>"
    assert run("{{.x}} {{.y}}", data, options=("missingkey=invalid",)) == "99 <no value>"
    # The zero value of interface {} is nil, which prints as nothing at all: <no value>.
    assert run("{{.x}} {{.y}}", data, options=("missingkey=zero",)) == "99 <no value>"
    assert (
        run("{{.x}} {{.y}}", data, options=("missingkey=error",))
        == 'ERROR: template: t:1:9: executing "t" at <.y>: map has no entry for key "y"'
    )
    assert (
        run("{{.x}}", None, options=("missingkey=error",))
        == 'ERROR: template: t:1:2: executing "t" at <.x>: nil data; no entry for key "x"'
    )
    assert (
        run("{{.y.z}}", data, options=("missingkey=zero",))
        == 'ERROR: template: t:1:4: executing "t" at <.y.z>: nil pointer evaluating interface {}.z'
    )


@pytest.mark.parametrize(
    ("opt", "message"),
    [
        ("", "empty option string"),
        ("missingkey=bad", "unrecognized option: missingkey=bad"),
        ("x", "unrecognized option: x"),
    ],
)
def test_bad_options(opt: str, message: str) -> None:
    """An option Go does not know is the panic text Go gives."""
    with pytest.raises(OptionError, match=f"^{message}$"):
        Template("t").option(opt)


def test_nested_template_error() -> None:
    """Go's TestExecError: an error in a template called from others names the innermost, with its position."""
    text = (
        'line 1\nline 2\nline 3\n{{template "one" .}}\n{{define "one"}}{{template "two" .}}{{end}}\n'
        '{{define "two"}}{{template "three" .}}{{end}}\n{{define "three"}}{{index "hi" $}}{{end}}'
    )
    with pytest.raises(ExecError) as exc:
        Template("top").parse(text).execute(G(5))
    assert str(exc.value) == (
        'template: top:7:20: executing "three" at <index "hi" $>: error calling index: index out of range: 5'
    )


def test_empty_template() -> None:
    """Go's TestMessageForExecuteEmpty: a template with no body."""
    with pytest.raises(ExecError, match=r'^template: empty: "empty" is an incomplete or empty template$'):
        Template("empty").execute(G(0))
    t = Template("empty")
    t.parse('{{define "one"}}one{{end}}{{define "two"}}two{{end}}')
    assert t.execute_template("two", None) == "two"
    with pytest.raises(ExecError, match=r'^template: no template "three" associated with template "empty"$'):
        t.execute_template("three", None)


def test_tree_with_delims_and_trim() -> None:
    """Go's TestTree: a recursive template with other delimiters and trim markers."""
    tree_template = """
    (- define "tree" -)
    [
        (- .Val -)
        (- with .Left -)
            (template "tree" . -)
        (- end -)
        (- with .Right -)
            (- template "tree" . -)
        (- end -)
    ]
    (- end -)
"""

    def node(val: int, left: Any = None, right: Any = None) -> dict[str, Any]:
        return {"Val": G(val), "Left": left, "Right": right}

    tree = node(
        1,
        node(2, node(3, node(4)), node(5, node(6))),
        node(7, node(8, node(9)), node(10, node(11))),
    )
    t = Template("root").delims("(", ")").parse(tree_template)
    assert t.execute_template("tree", tree) == "[1[2[3[4]][5[6]]][7[8[9]][10[11]]]]"


DELIM_PAIRS = [("", ""), ("{{", "}}"), ("<<", ">>"), ("|", "|"), ("(日)", "(本)")]


@pytest.mark.parametrize(("left", "right"), DELIM_PAIRS)
def test_delims(left: str, right: str) -> None:
    """Go's TestDelims: any delimiters, including ones that look like the default or each other."""
    tl, tr = left or "{{", right or "}}"
    text = f'{tl}.Str{tr}{tl}/*comment*/{tr}{tl}"{tl}"{tr}'
    assert (
        Template("delims").delims(left, right).parse(text).execute({"Str": "Hello, world"})
        == "Hello, world" + tl
    )


def test_block_redefined_by_a_later_parse() -> None:
    """Go's TestBlock: a block's default body is replaced by a later definition of its name."""
    t = Template("outer").parse('a({{block "inner" .}}bar({{.}})baz{{end}})b')
    assert t.execute("hello") == "a(bar(hello)baz)b"
    t.parse('{{define "inner"}}foo({{.}})bar{{end}}')
    assert t.execute("goodbye") == "a(foo(goodbye)bar)b"


def test_empty_redefinition_keeps_body() -> None:
    """A later parse of only definitions (or space) does not blank the main template."""
    t = Template("t").parse("main {{template `x`}}")
    t.parse('\n{{define "x"}}X{{end}}\n')
    assert t.execute(None) == "main X"


def test_function_names_checked() -> None:
    """Go's TestBadFuncNames: a function name must be an identifier."""
    for good in ("_", "a", "a1", "Ӵ"):
        Template("t").funcs({good: FUNCS["zeroArgs"]})
    for bad in ("", "2", "a-b"):
        with pytest.raises(Exception, match="is not a valid identifier"):
            Template("t").funcs({bad: FUNCS["zeroArgs"]})


def test_max_exec_depth() -> None:
    """Go's TestMaxExecDepth: endless template recursion stops at Go's depth with Go's message."""
    with pytest.raises(ExecError, match=r"exceeded maximum template depth \(100000\)$"):
        Template("tmpl").parse('{{template "tmpl" .}}').execute(None)


def test_release_of() -> None:
    """A Go version string picks its minor release."""
    assert GoRelease.of("go1.23.8") == GoRelease("1.23")
    assert GoRelease.of("1.25") == GoRelease("1.25")
    with pytest.raises(ValueError, match=r"not a Go 1\.x version"):
        GoRelease.of("2.0")
