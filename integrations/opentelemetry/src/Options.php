<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

/**
 * The instrumentation's settings, from register()'s $options array or, for
 * the auto-registration, from the environment.
 *
 *   lock_names  'none' (default) | 'spans' | 'all'     env OTEL_PHP_DISTLOCK_LOCK_NAMES
 *       where lock names are written: nowhere; on spans (distlock.lock.name,
 *       distlock.lock.names); on spans and as a metric attribute. Off by
 *       default: a lock name is often made of a user id, an order number or
 *       an e-mail address (`checkout:alice@example.com`), and spans and
 *       metrics usually leave the company for an APM vendor; on metrics a
 *       name also makes one time series per name.
 *   traces      bool, default true                   env OTEL_PHP_DISTLOCK_TRACES
 *   metrics     bool, default true                   env OTEL_PHP_DISTLOCK_METRICS
 */
final class Options
{
    public const LOCK_NAMES_NONE = 'none';
    public const LOCK_NAMES_SPANS = 'spans';
    public const LOCK_NAMES_ALL = 'all';

    private const KEYS = ['lock_names', 'traces', 'metrics'];

    private function __construct(
        public readonly bool $spanLockNames,
        public readonly bool $metricLockNames,
        public readonly bool $traces,
        public readonly bool $metrics,
    ) {
    }

    /**
     * @param array<string, mixed> $options see the class comment
     * @throws \ValueError an unknown key, or a value that is not one of those listed (the message names the key)
     * @throws \TypeError  a value of the wrong type (the message names the key)
     */
    public static function fromArray(array $options): self
    {
        foreach (array_keys($options) as $key) {
            if (!in_array($key, self::KEYS, true)) {
                throw new \ValueError(sprintf('DistLockInstrumentation: unknown option "%s" (known: %s)', $key, implode(', ', self::KEYS)));
            }
        }
        $names = $options['lock_names'] ?? self::LOCK_NAMES_NONE;
        if (!is_string($names)) {
            throw new \TypeError(sprintf('DistLockInstrumentation: option "lock_names" must be a string, %s given', get_debug_type($names)));
        }
        if (!in_array($names, [self::LOCK_NAMES_NONE, self::LOCK_NAMES_SPANS, self::LOCK_NAMES_ALL], true)) {
            throw new \ValueError('DistLockInstrumentation: option "lock_names" must be "none", "spans" or "all"');
        }
        foreach (['traces', 'metrics'] as $key) {
            if (array_key_exists($key, $options) && !is_bool($options[$key])) {
                throw new \TypeError(sprintf('DistLockInstrumentation: option "%s" must be a bool, %s given', $key, get_debug_type($options[$key])));
            }
        }

        return new self(
            $names !== self::LOCK_NAMES_NONE,
            $names === self::LOCK_NAMES_ALL,
            $options['traces'] ?? true,
            $options['metrics'] ?? true,
        );
    }

    /**
     * The options of the auto-registration: OTEL_PHP_DISTLOCK_LOCK_NAMES,
     * OTEL_PHP_DISTLOCK_TRACES, OTEL_PHP_DISTLOCK_METRICS (booleans as
     * OpenTelemetry's variables spell them: true/false, case-insensitive).
     * A value that is not understood is ignored with an E_USER_WARNING (the
     * default is kept), as the SDK does with its own variables: a typo in the
     * environment must not stop the application.
     */
    public static function fromEnvironment(): self
    {
        $options = [];
        $names = self::env('OTEL_PHP_DISTLOCK_LOCK_NAMES');
        if ($names !== null) {
            $names = strtolower($names);
            if (in_array($names, [self::LOCK_NAMES_NONE, self::LOCK_NAMES_SPANS, self::LOCK_NAMES_ALL], true)) {
                $options['lock_names'] = $names;
            } else {
                trigger_error('OTEL_PHP_DISTLOCK_LOCK_NAMES must be none, spans or all; using none', E_USER_WARNING);
            }
        }
        foreach (['traces' => 'OTEL_PHP_DISTLOCK_TRACES', 'metrics' => 'OTEL_PHP_DISTLOCK_METRICS'] as $key => $var) {
            $value = self::env($var);
            if ($value === null) {
                continue;
            }
            $bool = match (strtolower($value)) {
                'true' => true,
                'false' => false,
                default => null,
            };
            if ($bool === null) {
                trigger_error("$var must be true or false; using true", E_USER_WARNING);
                continue;
            }
            $options[$key] = $bool;
        }

        return self::fromArray($options);
    }

    /** The variable's value, trimmed, from getenv() or $_SERVER (as the SDK reads them); null when unset or empty. */
    private static function env(string $name): ?string
    {
        $value = getenv($name);
        if ($value === false) {
            $value = $_SERVER[$name] ?? null;
        }
        if (!is_string($value) || trim($value) === '') {
            return null;
        }

        return trim($value);
    }
}
