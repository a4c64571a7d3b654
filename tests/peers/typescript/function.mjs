#!/usr/bin/env node
// A tiny composition function built with the official TypeScript SDK
// (@crossplane-org/function-sdk-typescript). It composes one ConfigMap with
// the XR's spec.greeting, marks it ready and reports a Normal result.
// crossfn render starts it through the Process runtime: `node function.mjs
// --insecure --address=127.0.0.1:<port>`; the SDK's serve() parses the flags.
import {
  Resource,
  getObservedCompositeResource,
  normal,
  serve,
} from "@crossplane-org/function-sdk-typescript";

export const compose = (req, rsp) => {
  const xr = getObservedCompositeResource(req);
  const greeting = xr?.resource?.spec?.greeting ?? "hello";
  rsp.desired.resources["greeting"] = Resource.fromJSON({
    resource: {
      apiVersion: "v1",
      kind: "ConfigMap",
      data: { greeting },
    },
    ready: "READY_TRUE",
  });
  normal(rsp, `said ${JSON.stringify(greeting)}`);
  return rsp;
};

serve(compose);
