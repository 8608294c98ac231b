<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use DistLock\OpenTelemetry\DistLockInstrumentation;
use OpenTelemetry\SDK\Metrics\Data\Metric;
use OpenTelemetry\SDK\Metrics\MeterProvider;
use OpenTelemetry\SDK\Metrics\MetricExporter\InMemoryExporter as InMemoryMetricExporter;
use OpenTelemetry\SDK\Metrics\MetricReader\ExportingReader;
use OpenTelemetry\SDK\Trace\SpanDataInterface;
use OpenTelemetry\SDK\Trace\SpanExporter\InMemoryExporter as InMemorySpanExporter;
use OpenTelemetry\SDK\Trace\SpanProcessor\SimpleSpanProcessor;
use OpenTelemetry\SDK\Trace\TracerProvider;
use PHPUnit\Framework\TestCase;

/**
 * The SDK with its in-memory span and metric exporters, the instrumentation
 * registered by hand on them, and a distlock client on the test server.
 */
abstract class TelemetryTestCase extends TestCase
{
    protected InMemorySpanExporter $spans;
    protected TracerProvider $tracerProvider;
    protected InMemoryMetricExporter $metricExporter;
    protected ExportingReader $reader;
    protected MeterProvider $meterProvider;
    protected ?DistLockInstrumentation $instrumentation = null;
    protected string $redis;
    protected int $port;

    protected function setUp(): void
    {
        $redis = getenv('DISTLOCK_TEST_REDIS');
        if ($redis === false || $redis === '') {
            self::fail('DISTLOCK_TEST_REDIS is not set (redis://127.0.0.1:PORT of a throw-away server)');
        }
        $this->redis = $redis;
        $this->port = (int) parse_url($redis, PHP_URL_PORT);
        $this->spans = new InMemorySpanExporter();
        $this->tracerProvider = new TracerProvider(new SimpleSpanProcessor($this->spans));
        $this->metricExporter = new InMemoryMetricExporter();
        $this->reader = new ExportingReader($this->metricExporter);
        $this->meterProvider = MeterProvider::builder()->addReader($this->reader)->build();
    }

    protected function tearDown(): void
    {
        // What the test left held is released, and queued events reported,
        // here: never in the next test.
        \DistLock::endRequest();
        $this->instrumentation?->unregister();
        $this->instrumentation = null;
        $this->tracerProvider->shutdown();
        $this->meterProvider->shutdown();
    }

    /** @param array<string, mixed> $options */
    protected function instrument(array $options = []): DistLockInstrumentation
    {
        return $this->instrumentation = DistLockInstrumentation::register($this->tracerProvider, $this->meterProvider, $options);
    }

    /** @param array<string, mixed> $options */
    protected function client(array $options = []): \DistLock
    {
        return new \DistLock($this->redis, $options + ['prefix' => 'otel-test:']);
    }

    /** A name no earlier test (or run) used. */
    protected static function lockName(string $what): string
    {
        return $what . ':' . bin2hex(random_bytes(6));
    }

    /** @return list<SpanDataInterface> the exported spans named $name, in end order */
    protected function spansNamed(string $name): array
    {
        return array_values(array_filter($this->spans->getSpans(), static fn (SpanDataInterface $s) => $s->getName() === $name));
    }

    protected function onlySpan(string $name): SpanDataInterface
    {
        $found = $this->spansNamed($name);
        self::assertCount(1, $found, "one $name span; spans: " . implode(', ', $this->spanNames()));

        return $found[0];
    }

    /** @return list<string> */
    protected function spanNames(): array
    {
        return array_map(static fn (SpanDataInterface $s) => $s->getName(), $this->spans->getSpans());
    }

    /** @return array<string, mixed> */
    protected static function attributes(SpanDataInterface $span): array
    {
        return $span->getAttributes()->toArray();
    }

    /** @return array<string, Metric> the metrics collected now (cumulative), by name */
    protected function collect(): array
    {
        $this->reader->collect();
        $out = [];
        foreach ($this->metricExporter->collect(true) as $metric) {
            $out[$metric->name] = $metric;
        }

        return $out;
    }

    /**
     * @param array<string, Metric> $metrics
     * @return list<array{array<string, mixed>, object}> [attributes, data point] of the metric $name
     */
    protected static function points(array $metrics, string $name): array
    {
        self::assertArrayHasKey($name, $metrics, "metric $name; metrics: " . implode(', ', array_keys($metrics)));
        $out = [];
        foreach ($metrics[$name]->data->dataPoints as $point) {
            $out[] = [$point->attributes->toArray(), $point];
        }

        return $out;
    }

    /**
     * The data point of metric $name whose attributes include $match.
     *
     * @param array<string, Metric> $metrics
     * @param array<string, mixed>  $match
     */
    protected static function point(array $metrics, string $name, array $match): object
    {
        $points = self::points($metrics, $name);
        foreach ($points as [$attributes, $point]) {
            if (array_intersect_assoc($match, $attributes) == $match) {
                return $point;
            }
        }
        self::fail("no $name point with " . json_encode($match) . '; points: ' . json_encode(array_map(static fn ($p) => $p[0], $points)));
    }

    /**
     * Starts a PHP process (the extension loaded) that runs tests/holder.php:
     * it takes the mutex $name on the test server, prints "held", keeps it $seconds,
     * releases it and exits. Returns once the lock is held.
     *
     * @return resource the process (proc_close() it)
     */
    protected function holdElsewhere(string $name, float $seconds)
    {
        $cmd = [PHP_BINARY, '-d', 'extension=' . (getenv('DISTLOCK_SO') ?: 'distlock'), __DIR__ . '/holder.php',
            $this->redis, $name, (string) $seconds];
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        self::assertIsResource($proc);
        $line = fgets($pipes[1]);
        self::assertSame("held\n", $line, 'the holder process took the lock');

        return $proc;
    }
}
