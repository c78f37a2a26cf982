package io.paimongov.connector.spark.write;

import java.util.Iterator;

/**
 * Java and Scala iterators over each other, in source that compiles on Scala 2.12 and 2.13 alike
 * ({@code scala.jdk.javaapi.CollectionConverters} is 2.13 only, {@code scala.collection.JavaConverters}
 * deprecated there): only {@code hasNext}/{@code next} and {@code scala.collection.AbstractIterator},
 * which both lines have. The views are lazy and not thread-safe, like the iterators they wrap.
 */
final class ScalaIterators {
    private ScalaIterators() {}

    static <T> Iterator<T> asJava(scala.collection.Iterator<T> scala) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return scala.hasNext();
            }

            @Override
            public T next() {
                return scala.next();
            }
        };
    }

    static <T> scala.collection.Iterator<T> asScala(Iterator<T> java) {
        return new scala.collection.AbstractIterator<>() {
            @Override
            public boolean hasNext() {
                return java.hasNext();
            }

            @Override
            public T next() {
                return java.next();
            }
        };
    }
}
