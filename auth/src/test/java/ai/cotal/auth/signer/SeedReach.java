package ai.cotal.auth.signer;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Walks the object graph an SDK handle holds (the fields of every {@code ai.cotal} object, and the
 * collections, maps, optionals and arrays among them) looking for an object that must not be there,
 * such as a key pair of the data account's signing key. Test-side reflection only.
 */
final class SeedReach {
    private SeedReach() {
    }

    /** The field path to the first object {@code forbidden} accepts, or empty. */
    static Optional<String> find(Object root, Predicate<Object> forbidden) {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object[]> queue = new ArrayDeque<>();
        queue.add(new Object[] {root, root.getClass().getSimpleName()});
        while (!queue.isEmpty() && seen.size() < 500_000) {
            Object[] next = queue.poll();
            Object value = next[0];
            String path = (String) next[1];
            if (value == null || !seen.add(value)) {
                continue;
            }
            if (forbidden.test(value)) {
                return Optional.of(path);
            }
            if (value instanceof Collection<?> c) {
                int i = 0;
                for (Object item : c.toArray()) {
                    queue.add(new Object[] {item, path + "[" + i++ + "]"});
                }
            } else if (value instanceof Map<?, ?> m) {
                for (Map.Entry<?, ?> e : new java.util.HashMap<>(m).entrySet()) {
                    queue.add(new Object[] {e.getKey(), path + "{key}"});
                    queue.add(new Object[] {e.getValue(), path + "{value}"});
                }
            } else if (value instanceof Optional<?> o) {
                o.ifPresent(v -> queue.add(new Object[] {v, path + ".get()"}));
            } else if (value instanceof Object[] array) {
                for (int i = 0; i < array.length; i++) {
                    queue.add(new Object[] {array[i], path + "[" + i + "]"});
                }
            } else if (value.getClass().getName().startsWith("ai.cotal.")) {
                for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
                    for (Field field : type.getDeclaredFields()) {
                        if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
                            continue;
                        }
                        try {
                            field.setAccessible(true);
                            queue.add(new Object[] {field.get(value), path + "." + field.getName()});
                        } catch (ReflectiveOperationException | RuntimeException e) {
                            // a field reflection cannot open is not walked
                        }
                    }
                }
            }
        }
        return Optional.empty();
    }
}
