<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use DistLock\OpenTelemetry\DistLockInstrumentation;
use OpenTelemetry\API\Trace\SpanKind;
use OpenTelemetry\Contrib\Otlp\MetricExporter;
use OpenTelemetry\Contrib\Otlp\OtlpHttpTransportFactory;
use OpenTelemetry\Contrib\Otlp\SpanExporter;
use OpenTelemetry\SDK\Metrics\MeterProvider;
use OpenTelemetry\SDK\Metrics\MetricReader\ExportingReader;
use OpenTelemetry\SDK\Trace\SpanProcessor\BatchSpanProcessor;
use OpenTelemetry\SDK\Trace\TracerProvider;
use OpenTelemetry\API\Common\Time\Clock;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * The SDK's OTLP/HTTP exporters (open-telemetry/exporter-otlp) sending the
 * instrumentation's spans and metrics to an OTLP/HTTP receiver on
 * 127.0.0.1 (tests/otlp/receiver.php under PHP's built-in server), in both
 * encodings; what the receiver decoded is read back.
 */
final class OtlpExportTest extends TestCase
{
    /** @var resource|null */
    private $server = null;
    private string $dir;
    private int $port;

    protected function setUp(): void
    {
        if (!class_exists(SpanExporter::class)) {
            self::fail('open-telemetry/exporter-otlp is not installed');
        }
        $this->dir = sys_get_temp_dir() . '/distlock-otlp-' . bin2hex(random_bytes(4));
        mkdir($this->dir);
        for ($try = 0; $try < 5 && $this->server === null; $try++) {
            $s = stream_socket_server('tcp://127.0.0.1:0');
            $this->port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
            fclose($s);
            $env = getenv() + ['DISTLOCK_OTLP_DIR' => $this->dir];
            $env['DISTLOCK_OTLP_DIR'] = $this->dir;
            $proc = proc_open([PHP_BINARY, '-S', "127.0.0.1:{$this->port}", __DIR__ . '/otlp/receiver.php'],
                [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '.log', 'a'], 2 => ['file', $this->dir . '.log', 'a']], $pipes, null, $env);
            for ($i = 0; $i < 50; $i++) {
                $c = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $errstr, 0.2);
                if ($c !== false) {
                    fclose($c);
                    $this->server = $proc;
                    break;
                }
                usleep(100_000);
            }
            if ($this->server === null) {
                proc_terminate($proc);
                proc_close($proc);
            }
        }
        self::assertNotNull($this->server, 'the OTLP receiver started; its log: ' . @file_get_contents($this->dir . '.log'));
    }

    protected function tearDown(): void
    {
        if ($this->server !== null) {
            proc_terminate($this->server);
            proc_close($this->server);
        }
        array_map('unlink', glob($this->dir . '/*') ?: []);
        @rmdir($this->dir);
        @unlink($this->dir . '.log');
    }

    /** @return iterable<string, array{string}> */
    public static function encodings(): iterable
    {
        yield 'protobuf' => ['application/x-protobuf'];
        yield 'json' => ['application/json'];
    }

    #[DataProvider('encodings')]
    public function testSpansAndMetricsReachTheReceiver(string $contentType): void
    {
        if ($contentType === 'application/json' && !extension_loaded('bcmath')) {
            self::fail('the receiver decodes OTLP JSON with google/protobuf, which needs bcmath (php-bcmath)');
        }
        $factory = new OtlpHttpTransportFactory();
        $tracerProvider = new TracerProvider(new BatchSpanProcessor(
            new SpanExporter($factory->create("http://127.0.0.1:{$this->port}/v1/traces", $contentType)), Clock::getDefault()));
        $reader = new ExportingReader(new MetricExporter($factory->create("http://127.0.0.1:{$this->port}/v1/metrics", $contentType)));
        $meterProvider = MeterProvider::builder()->addReader($reader)->build();
        $registration = DistLockInstrumentation::register($tracerProvider, $meterProvider, ['lock_names' => 'spans']);
        try {
            $locks = new \DistLock((string) getenv('DISTLOCK_TEST_REDIS'), ['prefix' => 'otel-test:', 'fencing' => true]);
            $name = 'otlp:' . bin2hex(random_bytes(4));
            $request = $tracerProvider->getTracer('test')->spanBuilder('POST /pay')->setSpanKind(SpanKind::KIND_SERVER)->startSpan();
            $scope = $request->activate();
            $lock = $locks->lock($name, 5, 1);
            $token = $lock->fencingToken();
            $lock->release();
            $scope->detach();
            $request->end();
        } finally {
            $registration->unregister();
            self::assertTrue($tracerProvider->shutdown(), 'the span exporter flushed to the receiver');
            self::assertTrue($meterProvider->shutdown(), 'the metric exporter flushed to the receiver');
        }

        $spans = [];
        $metrics = [];
        foreach (glob($this->dir . '/*.json') as $file) {
            $got = json_decode(file_get_contents($file), true);
            self::assertSame($contentType, $got['content_type']);
            $spans = array_merge($spans, $got['spans'] ?? []);
            $metrics = array_merge($metrics, $got['metrics'] ?? []);
        }
        $byName = array_column($spans, null, 'name');
        self::assertSame(['POST /pay', 'distlock.acquire', 'distlock.release'], array_values(array_intersect(
            ['POST /pay', 'distlock.acquire', 'distlock.release'], array_keys($byName))), 'spans received: ' . implode(', ', array_keys($byName)));
        $acquire = $byName['distlock.acquire'];
        self::assertSame($byName['POST /pay']['span_id'], $acquire['parent_span_id']);
        self::assertSame($byName['POST /pay']['trace_id'], $acquire['trace_id']);
        self::assertSame($byName['POST /pay']['span_id'], $byName['distlock.release']['parent_span_id']);
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $acquire['trace_id']);
        self::assertMatchesRegularExpression('/^[0-9a-f]{16}$/', $acquire['span_id']);
        self::assertSame(3, $acquire['kind'], 'SPAN_KIND_CLIENT');
        self::assertSame('distlock/opentelemetry', $acquire['scope']);
        self::assertSame('https://opentelemetry.io/schemas/1.38.0', $acquire['schema_url']);
        self::assertGreaterThan((int) $acquire['start'], (int) $acquire['end']);
        self::assertSame('redis', $acquire['attributes']['db.system.name']);
        self::assertSame('distlock.acquire', $acquire['attributes']['db.operation.name']);
        self::assertSame('127.0.0.1', $acquire['attributes']['server.address']);
        self::assertSame((int) parse_url((string) getenv('DISTLOCK_TEST_REDIS'), PHP_URL_PORT), $acquire['attributes']['server.port']);
        self::assertSame($name, $acquire['attributes']['distlock.lock.name']);
        self::assertSame($token, $acquire['attributes']['distlock.fencing_token']);
        self::assertSame(0.0, $acquire['attributes']['distlock.wait.duration']);

        $metricNames = array_column($metrics, null, 'name');
        foreach (['distlock.lock.wait.duration' => 'histogram', 'distlock.lock.hold.duration' => 'histogram',
            'distlock.lock.acquisitions' => 'sum', 'db.client.operation.duration' => 'histogram'] as $metric => $kind) {
            self::assertArrayHasKey($metric, $metricNames, 'metrics received: ' . implode(', ', array_keys($metricNames)));
            self::assertSame($kind, $metricNames[$metric]['kind']);
        }
        self::assertSame('s', $metricNames['distlock.lock.hold.duration']['unit']);
        $acquisitions = $metricNames['distlock.lock.acquisitions']['points'][0];
        self::assertSame(1, $acquisitions['value']);
        self::assertSame('acquired', $acquisitions['attributes']['distlock.outcome']);
        self::assertArrayNotHasKey('distlock.lock.name', $acquisitions['attributes'], "lock_names 'spans' keeps names off metrics");
    }

    /**
     * The set-up the README gives: nothing but the environment (the SDK's
     * autoloader and OTLP exporters, the package's auto-registration), in a
     * fresh process; the spans and metrics reach the receiver when the SDK
     * flushes at shutdown.
     */
    public function testEnvironmentOnlySetUp(): void
    {
        $env = getenv();
        foreach (array_keys($env) as $k) {
            if (str_starts_with($k, 'OTEL_')) {
                unset($env[$k]);
            }
        }
        $env = [
            'OTEL_PHP_AUTOLOAD_ENABLED' => 'true',
            'OTEL_SERVICE_NAME' => 'distlock-env-test',
            'OTEL_TRACES_EXPORTER' => 'otlp',
            'OTEL_METRICS_EXPORTER' => 'otlp',
            'OTEL_LOGS_EXPORTER' => 'none',
            'OTEL_EXPORTER_OTLP_PROTOCOL' => 'http/protobuf',
            'OTEL_EXPORTER_OTLP_ENDPOINT' => "http://127.0.0.1:{$this->port}",
            'OTEL_PHP_DISTLOCK_LOCK_NAMES' => 'spans',
        ] + $env;
        $name = 'env:' . bin2hex(random_bytes(4));
        $cmd = [PHP_BINARY, '-d', 'extension=' . (getenv('DISTLOCK_SO') ?: 'distlock'), __DIR__ . '/otlp/env-app.php',
            (string) getenv('DISTLOCK_TEST_REDIS'), $name];
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
        self::assertIsResource($proc);
        $stdout = stream_get_contents($pipes[1]);
        $stderr = stream_get_contents($pipes[2]);
        self::assertSame(0, proc_close($proc), "env-app.php: $stderr");
        self::assertSame("done\n", $stdout);
        self::assertSame('', $stderr, 'no warning, no export failure');

        $spans = [];
        $metrics = [];
        foreach (glob($this->dir . '/*.json') as $file) {
            $got = json_decode(file_get_contents($file), true);
            $spans = array_merge($spans, $got['spans'] ?? []);
            $metrics = array_merge($metrics, array_column($got['metrics'] ?? [], 'name'));
        }
        $byName = array_column($spans, null, 'name');
        self::assertArrayHasKey('distlock.acquire', $byName, 'spans received: ' . implode(', ', array_keys($byName)));
        self::assertSame($byName['GET /env']['span_id'], $byName['distlock.acquire']['parent_span_id']);
        self::assertSame($byName['GET /env']['span_id'], $byName['distlock.release']['parent_span_id']);
        self::assertSame($name, $byName['distlock.acquire']['attributes']['distlock.lock.name']);
        self::assertContains('distlock.lock.acquisitions', $metrics);
        self::assertContains('distlock.lock.hold.duration', $metrics);
    }
}
