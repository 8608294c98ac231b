<?php

declare(strict_types=1);

/*
 * A minimal OTLP/HTTP receiver for the tests, run by PHP's built-in server:
 *   DISTLOCK_OTLP_DIR=DIR php -S 127.0.0.1:PORT receiver.php
 * It takes POST /v1/traces and /v1/metrics in both OTLP encodings
 * (application/x-protobuf, application/json), decodes them with the OTLP
 * protobuf classes generated from the opentelemetry-proto definitions
 * (open-telemetry/gen-otlp-protobuf, google/protobuf), answers as a
 * collector does (200 with an empty Export*ServiceResponse in the request's
 * encoding; 415 for another content type, 400 for a body that does not
 * decode, 404 for another path), and writes what it decoded to DIR as one
 * JSON file per request: the spans (ids in hex, kind, times, attributes,
 * status) or the metrics (name, unit, kind, data points), for the test to
 * read back. No Debian or npm package served here is an OTLP receiver (see
 * README); this is the smallest one that checks the wire format for real.
 * Autoloader: DISTLOCK_OTEL_AUTOLOAD. The JSON encoding needs bcmath
 * (google/protobuf's PHP decoder reads 64-bit integers with it).
 */

use Google\Protobuf\Internal\Message;
use Opentelemetry\Proto\Collector\Metrics\V1\ExportMetricsServiceRequest;
use Opentelemetry\Proto\Collector\Metrics\V1\ExportMetricsServiceResponse;
use Opentelemetry\Proto\Collector\Trace\V1\ExportTraceServiceRequest;
use Opentelemetry\Proto\Collector\Trace\V1\ExportTraceServiceResponse;
use Opentelemetry\Proto\Common\V1\AnyValue;

require getenv('DISTLOCK_OTEL_AUTOLOAD');

$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
[$request, $response] = match ([$_SERVER['REQUEST_METHOD'], $path]) {
    ['POST', '/v1/traces'] => [new ExportTraceServiceRequest(), new ExportTraceServiceResponse()],
    ['POST', '/v1/metrics'] => [new ExportMetricsServiceRequest(), new ExportMetricsServiceResponse()],
    default => [null, null],
};
if ($request === null) {
    http_response_code(404);
    return;
}
$type = strtolower(trim(explode(';', $_SERVER['CONTENT_TYPE'] ?? '')[0]));
if ($type !== 'application/x-protobuf' && $type !== 'application/json') {
    http_response_code(415);
    return;
}
$body = file_get_contents('php://input');
if (($_SERVER['HTTP_CONTENT_ENCODING'] ?? '') === 'gzip') {
    $body = gzdecode($body);
}
try {
    $type === 'application/json' ? $request->mergeFromJsonString($body, true) : $request->mergeFromString($body);
} catch (\Throwable $e) {
    http_response_code(400);
    error_log("receiver: $path: the body does not decode: " . $e->getMessage());
    echo $e->getMessage();
    return;
}

// OTLP's JSON writes ids in hex where proto3 JSON has base64: the decoder
// took the hex text for base64, so encoding those bytes again gives it back.
$hex = $type === 'application/json' ? base64_encode(...) : bin2hex(...);
$out = ['path' => $path, 'content_type' => $type];
if ($request instanceof ExportTraceServiceRequest) {
    $out['spans'] = [];
    foreach ($request->getResourceSpans() as $rs) {
        foreach ($rs->getScopeSpans() as $ss) {
            foreach ($ss->getSpans() as $s) {
                $out['spans'][] = [
                    'scope' => $ss->getScope()?->getName(),
                    'schema_url' => $ss->getSchemaUrl(),
                    'name' => $s->getName(),
                    'kind' => $s->getKind(),
                    'trace_id' => $hex($s->getTraceId()),
                    'span_id' => $hex($s->getSpanId()),
                    'parent_span_id' => $hex($s->getParentSpanId()),
                    'start' => (string) $s->getStartTimeUnixNano(),
                    'end' => (string) $s->getEndTimeUnixNano(),
                    'attributes' => attributes($s->getAttributes()),
                    'status_code' => $s->getStatus()?->getCode(),
                    'status_message' => $s->getStatus()?->getMessage(),
                ];
            }
        }
    }
} else {
    $out['metrics'] = [];
    foreach ($request->getResourceMetrics() as $rm) {
        foreach ($rm->getScopeMetrics() as $sm) {
            foreach ($sm->getMetrics() as $m) {
                $kind = $m->getData();
                $points = [];
                $data = $m->{'get' . ucfirst($kind)}();
                foreach ($data->getDataPoints() as $p) {
                    $point = ['attributes' => attributes($p->getAttributes())];
                    if ($kind === 'histogram') {
                        $point += ['count' => (int) $p->getCount(), 'sum' => $p->getSum(),
                            'bounds' => iterator_to_array($p->getExplicitBounds()), 'buckets' => array_map('intval', iterator_to_array($p->getBucketCounts()))];
                    } else {
                        $point['value'] = $p->hasAsInt() ? (int) $p->getAsInt() : $p->getAsDouble();
                    }
                    $points[] = $point;
                }
                $out['metrics'][] = ['scope' => $sm->getScope()?->getName(), 'name' => $m->getName(), 'unit' => $m->getUnit(), 'kind' => $kind, 'points' => $points];
            }
        }
    }
}
$dir = getenv('DISTLOCK_OTLP_DIR');
file_put_contents(sprintf('%s/%s-%s.json', $dir, hrtime(true), trim($path, '/') === 'v1/traces' ? 'traces' : 'metrics'),
    json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION));

header('Content-Type: ' . $type);
echo $type === 'application/json' ? $response->serializeToJsonString() : $response->serializeToString();

/** @return array<string, mixed> */
function attributes(iterable $keyValues): array
{
    $out = [];
    foreach ($keyValues as $kv) {
        $out[$kv->getKey()] = value($kv->getValue());
    }

    return $out;
}

function value(?AnyValue $v): mixed
{
    return match ($v?->getValue()) {
        'string_value' => $v->getStringValue(),
        'bool_value' => $v->getBoolValue(),
        'int_value' => (int) $v->getIntValue(),
        'double_value' => $v->getDoubleValue(),
        'array_value' => array_map(value(...), iterator_to_array($v->getArrayValue()->getValues())),
        default => null,
    };
}
