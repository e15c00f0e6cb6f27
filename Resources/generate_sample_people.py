#!/usr/bin/env python3
"""Writes SamplePeople.json, the people that seed a new `people` store.

Deterministic: the same script always writes the same file. Run it from anywhere:

    python3 Resources/generate_sample_people.py

The data is made up. It is shaped to exercise the app: every letter A-Z has a section, CJK, Greek and
Cyrillic names fall into "#", accented and lower-case last names test case and diacritic folding, a few
names are written with combining marks (kept decomposed in the file as \\u escapes), and some full names
occur twice with different emails.
"""

import json
import random
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path

SEED = 20240305
OUTPUT = Path(__file__).with_name("SamplePeople.json")

# Each group: first names, last names and cities that belong together. A name is either a plain string
# or a (display, ascii) pair when it has no Latin spelling to derive the email from.
GROUPS = {
    "english": {
        "first": ["Ada", "Oliver", "Grace", "Harry", "Amelia", "Jack", "Isla", "Noah", "Sam", "Ruby",
                  "Ethan", "Chloe", "Liam", "Emily", "Mason", "Hannah", "Owen", "Lucy", "Zoë", "Chloé"],
        "last": ["Abbott", "Baker", "Carter", "Dawson", "Ellis", "Fletcher", "Gray", "Hughes", "Irving",
                 "Jennings", "Kendall", "Lawrence", "Morgan", "Newman", "Osborne", "Parker", "Quinn",
                 "Reynolds", "Sutton", "Turner", "Underwood", "Vaughan", "Walsh", "Yates", "Young",
                 "Xavier", "smith"],
        "city": ["London", "Leeds", "Manchester", "Bristol", "New York", "Chicago", "Toronto", "Sydney",
                 "Auckland", "Cape Town"],
    },
    "irish": {
        "first": ["Aoife", "Siobhán", "Seán", "Niamh", "Eoin", "Caoimhe", "Ciarán", "Róisín"],
        "last": ["Ó Briain", "O'Connor", "Ní Dhomhnaill", "Mac Cárthaigh", "Kavanagh", "Whelan"],
        "city": ["Dublin", "Cork", "Galway"],
    },
    "german": {
        "first": ["Jürgen", "Lena", "Lukas", "Sophie", "Jörg", "Anja", "Günter", "Käthe", "Felix", "Mia"],
        "last": ["Müller", "Schröder", "Weiß", "Bäcker", "Krüger", "Vogel", "Zimmermann", "Hoffmann",
                 "von Essen", "Gößmann", "Übel", "Quandt"],
        "city": ["Berlin", "München", "Köln", "Düsseldorf", "Zürich", "Wien", "Graz"],
    },
    "dutch": {
        "first": ["Daan", "Sanne", "Bram", "Femke", "Joost", "Lotte", "Sem", "Anouk"],
        "last": ["van Dijk", "van der Meer", "de Jong", "de Vries", "Bakker", "Visser", "Jansen",
                 "van den Berg", "IJzerman"],
        "city": ["Amsterdam", "Rotterdam", "Utrecht", "Antwerpen", "Gent"],
    },
    "nordic": {
        "first": ["Åsa", "Björn", "Sigríður", "Søren", "Ingrid", "Mikael", "Ærin", "Øystein",
                  "Linnéa", "Astrid", "Jóhann", "Freja"],
        "last": ["Åberg", "Ærenlund", "Østergaard", "Øberg", "Lindqvist", "Nyström", "Söderberg",
                 "Hjálmarsson", "Úlfarsson", "Jónsdóttir", "Kristiansen", "Halvorsen", "af Klint",
                 "ångström", "østby", "Engström", "Rasmussen"],
        "city": ["Malmö", "Göteborg", "Stockholm", "Aarhus", "Tromsø", "Reykjavík", "Helsinki",
                 "Ærøskøbing", "Bergen"],
    },
    "french": {
        "first": ["Renée", "Étienne", "Chloé", "Amélie", "François", "Hélène", "Jérôme", "Noémie",
                  "Océane", "Gaëlle", "Raphaël", "Zoé"],
        "last": ["Émond", "Lefèvre", "Dubois", "Garnier", "Moreau", "Fournier", "Giraud", "le Gall",
                 "Pérez", "Béranger", "ébert", "Yvon", "Rousseau"],
        "city": ["Paris", "Lyon", "Marseille", "Genève", "Montréal", "Québec", "Bruxelles", "Nîmes"],
    },
    "spanish": {
        "first": ["José", "María", "Lucía", "Sofía", "Martín", "Álvaro", "Inés", "Andrés", "Ramón",
                  "Begoña", "Iñaki", "Valentina"],
        "last": ["Álvarez", "García", "Jiménez", "Núñez", "Ortega", "de la Cruz", "del Río", "Íñiguez",
                 "Zapata", "Quintero", "Xuárez", "Yáñez", "Uribe", "Vargas", "Castañeda", "Muñoz"],
        "city": ["Madrid", "Sevilla", "Málaga", "Córdoba", "A Coruña", "Bogotá", "Medellín",
                 "Ciudad de México", "Lima", "Buenos Aires"],
    },
    "portuguese": {
        "first": ["João", "Conceição", "Gonçalo", "Leonor", "Tomás", "Mariana", "Luís", "Beatriz"],
        "last": ["da Silva", "dos Santos", "Gonçalves", "Magalhães", "Araújo", "Conceição", "Fernandes",
                 "Pereira"],
        "city": ["São Paulo", "Rio de Janeiro", "Brasília", "Belém", "Lisboa", "Porto", "Coimbra"],
    },
    "italian": {
        "first": ["Giulia", "Lorenzo", "Chiara", "Niccolò", "Francesca", "Matteo", "Ilaria", "Andrea"],
        "last": ["Rossi", "Bianchi", "Esposito", "Ricci", "di Marco", "Lombardi", "Fabbri", "Zanetti",
                 "Quaranta"],
        "city": ["Roma", "Milano", "Torino", "Napoli", "Bologna", "Firenze"],
    },
    "polish_czech": {
        "first": ["Łukasz", "Małgorzata", "Paweł", "Agnieszka", "Wojciech", "Zuzanna", "Jiří", "Tereza",
                  "Kateřina", "Ondřej"],
        "last": ["Łukasiewicz", "Łopatka", "Wójcik", "Kowalczyk", "Zieliński", "Nowak", "Kamińska",
                 "Čapek", "Dvořák", "Novotná", "Řezníček", "Šimková", "łoś"],
        "city": ["Kraków", "Warszawa", "Łódź", "Gdańsk", "Wrocław", "Praha", "Brno", "Plzeň"],
    },
    "turkish": {
        "first": ["Ayşe", "Mehmet", "Elif", "Çağrı", "Gökhan", "Şebnem", "Oğuz", "Zeynep"],
        "last": ["Ünal", "Çelik", "Çakır", "Şahin", "Öztürk", "Yılmaz", "Işık", "İnce", "Güneş", "Aydın"],
        "city": ["İstanbul", "Ankara", "İzmir", "Eskişehir", "Bursa"],
    },
    "balkan": {
        "first": ["Đorđe", "Milica", "Nikola", "Jelena", "Luka", "Ivana", "Dušan", "Snežana"],
        "last": ["Đorđević", "Đukić", "Jovanović", "Živković", "Šimić", "Horvat", "Kovačević", "Babić"],
        "city": ["Beograd", "Niš", "Novi Sad", "Zagreb", "Split", "Ljubljana", "Sarajevo"],
    },
    "japanese": {
        "first": [("花子", "hanako"), ("太郎", "taro"), ("優子", "yuko"), ("翔太", "shota"),
                  ("さくら", "sakura"), ("健", "ken"), "Haruto", "Yui"],
        "last": [("田中", "tanaka"), ("鈴木", "suzuki"), ("佐藤", "sato"), ("高橋", "takahashi"),
                 ("渡辺", "watanabe"), ("山本", "yamamoto"), "Yamamoto", "Itō", "Nakamura", "Ōta"],
        "city": ["東京", "大阪", "京都", "札幌", "Yokohama", "Fukuoka"],
    },
    "chinese": {
        "first": [("伟", "wei"), ("芳", "fang"), ("秀英", "xiuying"), ("磊", "lei"), ("静", "jing"),
                  "Xiaoming", "Mei", "Jun"],
        "last": [("王", "wang"), ("李", "li"), ("张", "zhang"), ("刘", "liu"), ("陈", "chen"),
                 ("杨", "yang"), "Xu", "Zhang", "Huang", "Guo"],
        "city": ["北京", "上海", "深圳", "香港", "台北", "Chengdu", "Singapore"],
    },
    "korean": {
        "first": [("민준", "minjun"), ("서연", "seoyeon"), ("지훈", "jihoon"), ("하은", "haeun"),
                  "Ji-woo", "Seo-yun"],
        "last": [("김", "kim"), ("이", "lee"), ("박", "park"), ("최", "choi"), "Jeong", "Kang"],
        "city": ["서울", "부산", "Incheon", "Daegu"],
    },
    "vietnamese": {
        "first": ["Thảo", "Đức", "Minh", "Hương", "Quang", "Ngọc", "Phương", "Tuấn"],
        "last": ["Nguyễn", "Trần", "Lê", "Phạm", "Vũ", "Đặng", "Bùi", "Hoàng"],
        "city": ["Hà Nội", "Hồ Chí Minh", "Đà Nẵng", "Huế"],
    },
    "greek_cyrillic": {
        "first": [("Γιώργος", "giorgos"), ("Ελένη", "eleni"), ("Анна", "anna"), ("Дмитрий", "dmitry"),
                  "Nikos", "Katerina", "Olga", "Pavel"],
        "last": [("Παπαδόπουλος", "papadopoulos"), ("Иванова", "ivanova"), ("Смирнов", "smirnov"),
                 "Papadakis", "Kuznetsov", "Volkova", "Economou"],
        "city": ["Αθήνα", "Thessaloniki", "Москва", "Kyiv", "Tbilisi", "Sofia"],
    },
}

# People written on purpose, appended after the random ones: names with combining marks (decomposed),
# and full names that occur twice with different emails.
SPECIAL = [
    ("Rene\u0301e", "Laurent", "french"),
    ("Anna", "Mu\u0308ller", "german"),
    ("Anna", "Müller", "german"),          # canonically equal to the decomposed one above
    ("Zoe\u0308", "Harper", "english"),
    ("Bjo\u0308rn", "Sandberg", "nordic"),
    ("Selin", "O\u0308zdemir", "turkish"),
    ("Camille", "E\u0301mond", "french"),
    ("Lucía", "Jime\u0301nez", "spanish"),
    ("María", "García", "spanish"),
    ("María", "García", "spanish"),
    ("John", "Smith", "english"),
    ("John", "Smith", "english"),
    (("伟", "wei"), ("李", "li"), "chinese"),
    (("伟", "wei"), ("李", "li"), "chinese"),
    ("Daan", "van Dijk", "dutch"),
    ("Daan", "van Dijk", "dutch"),
]

RANDOM_PEOPLE = 330
DOMAINS = ["example.org", "example.com"]
EARLIEST = datetime(2021, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2025, 6, 30, 23, 59, 59, tzinfo=timezone.utc)

# Letters that Unicode decomposition leaves alone but a reader folds anyway.
SPECIAL_FOLDS = {"Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o", "Ł": "L", "ł": "l", "ß": "ss",
                 "Đ": "D", "đ": "d", "Œ": "OE", "œ": "oe", "Þ": "TH", "þ": "th", "ı": "i"}


def display(name):
    return name[0] if isinstance(name, tuple) else name


def fold(text):
    """Case- and diacritic-folds text the way the app's section index does."""
    stripped = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return "".join(SPECIAL_FOLDS.get(c, c) for c in stripped).upper()


def section(last_name):
    initial = fold(last_name)[:1]
    return initial if "A" <= initial <= "Z" else "#"


def ascii_slug(name):
    if isinstance(name, tuple):
        return name[1]
    return "".join(c for c in fold(name).lower() if c.isascii() and c.isalnum())


def make_email(rng, first, last, taken):
    f, l = ascii_slug(first), ascii_slug(last)
    local = rng.choice([f"{f}.{l}", f"{f}{l}", f"{f[0]}.{l}", f"{f}_{l}", f"{l}.{f}"])
    domain = rng.choice(DOMAINS)
    email, n = f"{local}@{domain}", 2
    while email in taken:
        email, n = f"{local}{n}@{domain}", n + 1
    taken.add(email)
    return email


def make_person(rng, first, last, group, taken):
    span = int((LATEST - EARLIEST).total_seconds())
    created = EARLIEST + timedelta(seconds=rng.randrange(span))
    return {
        "firstName": display(first),
        "lastName": display(last),
        "email": make_email(rng, first, last, taken),
        "city": rng.choice(GROUPS[group]["city"]),
        "age": round(rng.triangular(18, 90, 34)),
        "createdAt": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def generate():
    rng = random.Random(SEED)
    taken = set()
    people = []
    # Every last name once, so every section is populated, then random people weighted by group size.
    for group, pools in GROUPS.items():
        for last in pools["last"]:
            people.append(make_person(rng, rng.choice(pools["first"]), last, group, taken))
    # English names weigh more, as in the made-up customer base of an English-speaking shop; a full name
    # already present is drawn again, so that duplicates are the deliberate ones below.
    names = list(GROUPS)
    weights = [len(GROUPS[g]["last"]) * (3 if g == "english" else 1) for g in names]
    used = {(p["firstName"], p["lastName"]) for p in people}
    while len(people) < RANDOM_PEOPLE:
        group = rng.choices(names, weights)[0]
        pools = GROUPS[group]
        first, last = rng.choice(pools["first"]), rng.choice(pools["last"])
        if (display(first), display(last)) in used:
            continue
        used.add((display(first), display(last)))
        people.append(make_person(rng, first, last, group, taken))
    for first, last, group in SPECIAL:
        people.append(make_person(rng, first, last, group, taken))
    people.sort(key=lambda p: (p["createdAt"], p["email"]))
    return people


def escape_combining_marks(text):
    # Readable UTF-8 for precomposed letters; combining marks as \u escapes so that no editor or tool
    # silently normalizes the decomposed names back to precomposed ones.
    return "".join(f"\\u{ord(c):04x}" if unicodedata.combining(c) else c for c in text)


def main():
    people = generate()
    lines = [escape_combining_marks(json.dumps(p, ensure_ascii=False)) for p in people]
    OUTPUT.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    print(f"wrote {len(people)} people to {OUTPUT}")


if __name__ == "__main__":
    main()
