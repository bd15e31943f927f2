"""Text of the demo booklets of « Les Aéronautes » (an original game written for Oracle).

Each page is a dict with a layout (`title`, `flow`, `columns`) and blocks (`h1`, `h2`, `p`,
`ul`, `box`, `table`, `icons`, `space`); scripts/make_demo_pdfs.py lays them out. Rule
numbers matter: the expansion overrides base rules by number, and eval/demo_questions.jsonl
points at the pages below.
"""

# ---------------------------------------------------------------- base rulebook (French)

_TITLE = {
    "layout": "title",
    "title": "LES AÉRONAUTES",
    "subtitle": "Une course de montgolfières au-dessus de l'archipel de Vellune",
    "facts": "2 à 5 joueurs  ·  dès 10 ans  ·  45 à 60 minutes",
    "blocks": [
        ("p", "L'été venu, les meilleurs pilotes de l'archipel de Vellune s'élancent de **Port-Céleste** "
              "pour la Grande Traversée. Le premier arrivé au **Phare du Couchant** sera fêté, mais le "
              "public se souvient surtout des plus belles photographies rapportées des six Merveilles. "
              "Jouez avec les vents, dosez votre gaz et lâchez du lest au bon moment !"),
        ("h2", "Sommaire"),
        ("table", ("Section", "Page"), [
            ("1. Présentation · 2. Matériel", "2"),
            ("3. Mise en place", "3"),
            ("4. Déroulement d'une manche", "4"),
            ("5. Les actions", "5–6"),
            ("6. Les couches d'altitude et le vent", "7"),
            ("7. Iconographie", "8"),
            ("8. Cas particuliers", "9"),
            ("9. Fin de partie et décompte", "10"),
            ("10. Variantes et résumé", "11"),
        ], (80, 20)),
        ("p", "Auteurs : l'atelier Oracle. Illustrations vectorielles : l'atelier Oracle. Jeu de "
              "démonstration librement reproductible."),
    ],
}

_OVERVIEW_AND_COMPONENTS = {
    "layout": "flow",
    "blocks": [
        ("h1", "1. Présentation"),
        ("h2", "1.1 But du jeu"),
        ("p", "Chaque joueur pilote une montgolfière. Partis de Port-Céleste, les ballons dérivent au gré "
              "des vents vers le Phare du Couchant, à l'autre bout de l'archipel. En chemin, les pilotes "
              "photographient les Merveilles de Vellune. À la fin de la partie, le joueur qui a le plus de "
              "**points de victoire** gagne : l'ordre d'arrivée au Phare, les photos et les objectifs "
              "secrets rapportent des points (voir 9.2)."),
        ("h2", "1.2 Vue d'ensemble"),
        ("p", "Une partie dure au plus **10 manches**. À chaque manche, une carte Vent indique la direction "
              "du vent dans chacune des trois couches d'altitude. Les pilotes ne dirigent pas leur ballon : "
              "ils choisissent leur altitude pour profiter du bon vent. Monter coûte du gaz (les jetons "
              "Flamme), lâcher du lest est gratuit mais définitif."),
        ("h1", "2. Matériel"),
        ("table", ("Élément", "Quantité", "Utilisation"), [
            ("Plateau de l'archipel de Vellune", "1", "Cases hexagonales d'île et de mer"),
            ("Montgolfières en bois", "5", "Une par couleur de joueur"),
            ("Plateaux de pilote", "5", "Indiquent la couche d'altitude du ballon"),
            ("Jetons Flamme (gaz)", "40", "Payer les montées, le décollage et l'entretien"),
            ("Sacs de Lest", "15", "Monter sans dépenser de gaz"),
            ("Cartes Vent", "24", "Dont 6 cartes Rafale"),
            ("Tuiles Merveille", "6", "Placées sur les cases Longue-vue"),
            ("Jetons Photo", "30", "5 par Merveille"),
            ("Cartes Objectif secret", "12", "Chacune nomme deux Merveilles"),
            ("Jetons Arrivée numérotés", "5", "De 1 à 5, pris en atteignant le Phare"),
            ("Boussole en laiton", "1", "Marqueur de premier joueur"),
            ("Marqueur de manche", "1", "Avance sur la piste de 1 à 10"),
        ], (70, 22, 82)),
        ("p", "Les six Merveilles sont : l'Arche de Sel, la Forêt Suspendue, le Volcan Endormi, la Cité "
              "des Moulins, le Lac Miroir et les Orgues de Basalte."),
    ],
}

_SETUP = {
    "layout": "flow",
    "blocks": [
        ("h1", "3. Mise en place"),
        ("h2", "3.1 Le plateau"),
        ("p", "Dépliez le plateau au centre de la table. Mélangez les 6 tuiles Merveille face cachée, puis "
              "placez-en une, face visible, sur chaque case marquée de l'icône Longue-vue. Posez à côté de "
              "chaque Merveille ses 5 jetons Photo."),
        ("h2", "3.2 Les pilotes"),
        ("p", "Chaque joueur choisit une couleur et prend la montgolfière et le plateau de pilote de cette "
              "couleur, **4 jetons Flamme** et **2 sacs de Lest**. Les jetons Flamme restants forment la "
              "réserve générale."),
        ("h2", "3.3 Les objectifs secrets"),
        ("p", "Distribuez 2 cartes Objectif secret à chaque joueur. Chacun en garde une, face cachée, et "
              "remet l'autre dans la boîte sans la montrer. Une carte Objectif nomme deux Merveilles : "
              "l'objectif est réussi si vous avez photographié les deux à la fin de la partie."),
        ("h2", "3.4 Le départ"),
        ("p", "Toutes les montgolfières commencent sur la case de **Port-Céleste**, posées au sol "
              "(atterries). Le marqueur de manche est placé sur la case 1 de la piste des manches."),
        ("h2", "3.5 Le premier joueur"),
        ("p", "Le joueur **le plus jeune** devient premier joueur et prend la Boussole en laiton. Le jeu "
              "se déroule ensuite dans le sens des aiguilles d'une montre."),
        ("h2", "3.6 Compensations"),
        ("ul", [
            "Le dernier joueur dans l'ordre du tour reçoit **1 jeton Flamme supplémentaire**.",
            "À deux joueurs, chaque joueur commence avec **5 jetons Flamme** au lieu de 4.",
        ]),
        ("h2", "3.7 Les cartes Vent"),
        ("p", "Mélangez les 24 cartes Vent et formez une pioche face cachée à côté du plateau. "
              "Laissez de la place pour une défausse."),
    ],
}

_ROUND = {
    "layout": "flow",
    "blocks": [
        ("h1", "4. Déroulement d'une manche"),
        ("p", "Une manche se compose de trois phases jouées dans cet ordre : la phase de Vent, la phase "
              "des Pilotes, puis la phase d'Entretien."),
        ("h2", "4.1 Phase de Vent"),
        ("p", "Le premier joueur révèle la carte du dessus de la pioche Vent et la pose à côté du plateau. "
              "Elle montre une flèche pour chacune des trois couches d'altitude (basse, moyenne, haute) : "
              "c'est la direction dans laquelle les ballons de cette couche dériveront pendant toute la "
              "manche."),
        ("h2", "4.2 Phase des Pilotes"),
        ("p", "En commençant par le premier joueur puis dans le sens horaire, chaque joueur joue son tour : "
              "il effectue **jusqu'à 2 actions** (voir chapitre 5), puis son ballon dérive (voir 4.3). "
              "Un joueur peut effectuer deux fois la même action, sauf Photographier (une seule fois par "
              "tour)."),
        ("h2", "4.3 La dérive"),
        ("p", "Après ses actions, le ballon du joueur actif dérive en ligne droite dans la direction "
              "indiquée par la carte Vent pour sa couche. La distance dépend de la couche :"),
        ("ul", [
            "couche basse : **1 case** ;",
            "couche moyenne : **2 cases** ;",
            "couche haute : **3 cases** (4 cases si la carte Vent porte l'icône Rafale).",
        ]),
        ("p", "Un ballon atterri ne dérive pas. Un ballon qui entre dans la case du Phare du Couchant s'y "
              "arrête aussitôt, quelle que soit sa couche, et prend le jeton Arrivée numéroté le plus petit "
              "encore disponible."),
        ("h2", "4.4 Phase d'Entretien"),
        ("ul", [
            "Chaque ballon situé en couche haute paie **1 jeton Flamme** à la réserve : le brûleur doit "
            "rester allumé pour tenir l'altitude.",
            "La carte Vent de la manche est défaussée.",
            "Le premier joueur passe la Boussole en laiton à son voisin de gauche.",
            "Le marqueur de manche avance d'une case.",
        ]),
    ],
}

_ACTIONS_1 = {
    "layout": "flow",
    "blocks": [
        ("h1", "5. Les actions"),
        ("p", "Pendant son tour, un joueur effectue jusqu'à deux actions parmi les suivantes. Le coût de "
              "chaque action est payé avec des jetons Flamme ou des sacs de Lest pris sur son plateau de "
              "pilote et remis à la réserve."),
        ("table", ("Action", "Coût", "Condition"), [
            ("Monter", "1 Flamme", "Pas déjà en couche haute"),
            ("Descendre", "Gratuit", "Ballon en vol"),
            ("Lâcher du lest", "1 sac de Lest", "Pas déjà en couche haute"),
            ("Atterrir", "Gratuit", "Couche basse, au-dessus d'une île"),
            ("Décoller", "1 Flamme", "Ballon atterri"),
            ("Ravitailler", "Gratuit", "Atterri sur une île avec un Dépôt"),
            ("Photographier", "Gratuit", "Couche basse ou moyenne, une fois par tour"),
        ], (40, 35, 99)),
        ("h2", "5.1 Monter"),
        ("p", "Payez 1 jeton Flamme : votre ballon monte d'une couche (de basse à moyenne, ou de moyenne à "
              "haute). Déplacez le curseur d'altitude de votre plateau de pilote."),
        ("h2", "5.2 Descendre"),
        ("p", "Ouvrez la soupape : votre ballon descend d'une couche, sans rien payer. Un ballon en couche "
              "basse ne peut pas descendre : il doit Atterrir (5.4)."),
        ("h2", "5.3 Lâcher du lest"),
        ("p", "Défaussez 1 sac de Lest : votre ballon monte d'une couche sans dépenser de Flamme. Un sac "
              "lâché est perdu ; on ne récupère du Lest qu'en Ravitaillant."),
        ("h2", "5.4 Atterrir et décoller"),
        ("p", "**Atterrir** : si votre ballon est en couche basse au-dessus d'une case d'île, posez-le. Un "
              "ballon atterri ne dérive plus. Il est interdit d'atterrir sur une case de mer ou sur une case "
              "marquée de l'icône Récifs. **Décoller** : payez 1 jeton Flamme, votre ballon repart en couche "
              "basse."),
    ],
}

_ACTIONS_2 = {
    "layout": "flow",
    "blocks": [
        ("h2", "5.5 Ravitailler"),
        ("p", "Si votre ballon est atterri sur une île qui porte l'icône Ancre (un **Dépôt**), prenez "
              "jusqu'à **3 jetons Flamme** et **1 sac de Lest** dans la réserve. Vous ne pouvez jamais "
              "dépasser 8 jetons Flamme ni 3 sacs de Lest (voir 8.5). On ne peut Ravitailler qu'une fois "
              "par tour."),
        ("h2", "5.6 Photographier"),
        ("p", "Si votre ballon est en **couche basse ou moyenne** et se trouve sur la case d'une Merveille "
              "ou sur une case adjacente, prenez un jeton Photo de cette Merveille. Depuis la couche haute, "
              "les nuages masquent la vue : il est impossible de photographier. Vous ne pouvez photographier "
              "qu'une fois par tour, et jamais deux fois la même Merveille. Un ballon posé sur une case "
              "Brume ne peut pas photographier."),
        ("h2", "5.7 Passer"),
        ("p", "Un joueur qui n'effectue **aucune action** pendant son tour réchauffe son brûleur : il "
              "prend 1 jeton Flamme dans la réserve. Son ballon dérive normalement."),
        ("box", "Exemple de tour",
         "Camille est en couche basse, à deux cases du Lac Miroir ; la carte Vent pousse la couche "
         "moyenne vers le Lac. Première action : elle lâche un sac de Lest et monte en couche moyenne "
         "sans payer de Flamme. Seconde action : elle ne peut pas encore photographier, le Lac n'est pas "
         "adjacent. Son ballon dérive de 2 cases et s'arrête au-dessus du Lac Miroir. Au tour suivant, "
         "elle pourra prendre sa photo avant de dériver à nouveau."),
        ("box", "Rappel des coûts",
         "Monter : 1 Flamme. Décoller : 1 Flamme. Entretien en couche haute : 1 Flamme par manche. "
         "Lâcher du lest : 1 sac. Descendre, Atterrir, Ravitailler, Photographier : gratuit."),
    ],
}

_ALTITUDE_COLUMNS = {
    "layout": "columns",
    "intro": [("h1", "6. Les couches d'altitude et le vent")],
    "left": [
        ("h2", "6.1 Trois couches"),
        ("p", "Le ciel de Vellune est découpé en trois couches. La **couche basse** est lente mais permet "
              "d'atterrir. La **couche moyenne** est le meilleur compromis pour photographier en avançant. "
              "La **couche haute** est la plus rapide, mais elle coûte 1 Flamme à chaque phase d'Entretien "
              "et on n'y voit pas le sol."),
        ("h2", "6.2 Lire une carte Vent"),
        ("p", "Chaque carte Vent montre trois flèches superposées : la flèche du haut pour la couche "
              "haute, celle du milieu pour la couche moyenne, celle du bas pour la couche basse. Chaque "
              "flèche pointe vers l'un des six côtés de l'hexagone. Les flèches de deux couches différentes "
              "pointent souvent dans des directions différentes : c'est tout l'intérêt du jeu."),
        ("h2", "6.3 Les rafales"),
        ("p", "Six cartes Vent portent l'icône Rafale. Pendant la manche où une telle carte est révélée, "
              "les ballons de la couche haute dérivent de 4 cases au lieu de 3. Les couches basse et "
              "moyenne ne sont pas concernées."),
        ("layers", ["Couche haute : 3 cases", "Couche moyenne : 2 cases",
                    "Couche basse : 1 case"]),
    ],
    "right": [
        ("h2", "6.4 Partager une case"),
        ("p", "Plusieurs ballons peuvent occuper la même case s'ils sont dans des couches différentes. "
              "Deux ballons ne peuvent jamais être dans la même couche de la même case (voir 8.1)."),
        ("box", "Conseil",
         "La couche haute est tentante, mais un pilote sans gaz est un pilote perdu. Gardez toujours au "
         "moins 2 jetons Flamme avant de monter tout en haut, et repérez le Dépôt le plus proche."),
        ("box", "Précision",
         "La direction du vent est fixée pour toute la manche au moment où la carte Vent est révélée. "
         "Changer de couche pendant votre tour change donc la flèche qui s'applique à votre dérive, mais "
         "jamais la carte elle-même."),
        ("box", "Conseil",
         "Les Orgues de Basalte et l'Arche de Sel sont proches de Port-Céleste : photographiez-les dès "
         "les premières manches, pendant que vous êtes encore en couche basse."),
    ],
}

_ICONS = {
    "layout": "flow",
    "blocks": [
        ("h1", "7. Iconographie"),
        ("p", "Les icônes suivantes apparaissent sur le plateau, les cartes et les plateaux de pilote. "
              "Chaque illustration est suivie de sa signification."),
        ("icons", [
            ("flame", "Flamme", "Un jeton de gaz. Une icône Flamme sur une action indique son coût : "
                                "payez 1 jeton Flamme à la réserve."),
            ("ballast", "Sac de Lest", "Un sac de sable. Le défausser permet de monter d'une couche "
                                       "sans payer de gaz (5.3)."),
            ("spyglass", "Longue-vue", "Case d'une Merveille. On peut y Photographier depuis la case "
                                       "ou une case adjacente, en couche basse ou moyenne."),
            ("anchor", "Ancre", "Un Dépôt. Un ballon atterri sur cette île peut Ravitailler : jusqu'à "
                                "3 jetons Flamme et 1 sac de Lest."),
            ("mist", "Brume", "Case de brouillard : un ballon sur une case Brume ne peut pas "
                              "Photographier."),
            ("updraft", "Courant ascendant", "Un ballon qui termine sa dérive sur cette case monte "
                                             "immédiatement d'une couche, gratuitement (sauf s'il est "
                                             "déjà en couche haute)."),
            ("lighthouse", "Phare", "Le Phare du Couchant, l'arrivée de la course. Y entrer arrête le "
                                    "ballon et donne un jeton Arrivée."),
            ("reef", "Récifs", "Île bordée de récifs : il est interdit d'y Atterrir."),
            ("gust", "Rafale", "Sur une carte Vent : la couche haute dérive de 4 cases au lieu de 3 "
                               "pendant cette manche."),
        ]),
    ],
}

_SPECIAL_CASES = {
    "layout": "flow",
    "blocks": [
        ("h1", "8. Cas particuliers"),
        ("h2", "8.1 Collisions"),
        ("p", "Si la dérive d'un ballon doit se terminer sur une case où un autre ballon se trouve déjà "
              "dans la même couche, le ballon qui dérive se faufile : il avance d'**une case de plus** "
              "dans la même direction. Répétez si nécessaire."),
        ("h2", "8.2 Bord du plateau"),
        ("p", "Un ballon qui devrait sortir du plateau s'arrête sur la dernière case avant le bord et "
              "son pilote **perd 1 jeton Flamme**, usé à lutter contre le vent."),
        ("h2", "8.3 Panne de gaz"),
        ("p", "Si un joueur doit payer une Flamme (entretien en couche haute ou perte au bord du "
              "plateau) et n'en a plus, son ballon descend d'une couche à la place. Un ballon déjà en "
              "couche basse fait un atterrissage forcé sur sa case s'il s'agit d'une île, ou un "
              "amerrissage s'il s'agit d'une case de mer (8.4)."),
        ("h2", "8.4 Amerrissage"),
        ("p", "Un ballon qui amerrit est repêché : placez-le, atterri, sur le Dépôt le plus proche. Au "
              "prochain tour, son pilote **ne fait aucune action** (il n'obtient pas non plus la Flamme "
              "de l'action Passer)."),
        ("h2", "8.5 Réserves maximales"),
        ("p", "Un pilote ne peut jamais avoir plus de **8 jetons Flamme** ni plus de **3 sacs de Lest**. "
              "Tout surplus est immédiatement remis à la réserve."),
        ("h2", "8.6 Pioche Vent épuisée"),
        ("p", "Quand la pioche Vent est vide, mélangez la défausse pour former une nouvelle pioche."),
        ("h2", "8.7 Jetons Flamme épuisés"),
        ("p", "La réserve générale de Flammes est considérée comme illimitée : utilisez un substitut si "
              "elle est vide."),
    ],
}

_END_AND_SCORING = {
    "layout": "flow",
    "blocks": [
        ("h1", "9. Fin de partie et décompte"),
        ("h2", "9.1 Fin de la partie"),
        ("p", "La partie s'arrête à la fin de la manche au cours de laquelle le **deuxième ballon** "
              "atteint le Phare du Couchant. À deux joueurs, elle s'arrête à la fin de la manche où le "
              "premier ballon l'atteint. Dans tous les cas, elle s'arrête au plus tard à la fin de la "
              "**10e manche**."),
        ("h2", "9.2 Table de décompte"),
        ("p", "Chaque joueur additionne ses points de victoire selon la table suivante :"),
        ("table", ("Critère", "Points de victoire"), [
            ("Jeton Arrivée n° 1", "10 points"),
            ("Jeton Arrivée n° 2", "7 points"),
            ("Jeton Arrivée n° 3", "5 points"),
            ("Jeton Arrivée n° 4", "3 points"),
            ("Jeton Arrivée n° 5", "1 point"),
            ("Chaque jeton Photo", "3 points"),
            ("Collection complète (photos des 6 Merveilles)", "6 points de bonus"),
            ("Objectif secret réussi", "5 points"),
            ("Jetons Flamme restants", "1 point par paire de Flammes"),
            ("Ballon qui n'a pas atteint le Phare", "moins 3 points"),
        ], (110, 64)),
        ("h2", "9.3 Égalité"),
        ("p", "En cas d'égalité, le joueur qui a le plus de jetons Photo l'emporte. Si l'égalité "
              "persiste, celui qui a le plus de jetons Flamme gagne. Sinon, les joueurs se partagent "
              "la victoire."),
        ("h2", "9.4 Révéler les objectifs"),
        ("p", "Les cartes Objectif secret sont révélées seulement au décompte final. Un objectif dont "
              "une seule des deux Merveilles a été photographiée ne rapporte rien."),
    ],
}

_VARIANTS = {
    "layout": "flow",
    "blocks": [
        ("h1", "10. Variantes et résumé"),
        ("h2", "10.1 Variante familiale"),
        ("p", "Pour une première partie ou avec de jeunes enfants, jouez sans les cartes Objectif secret "
              "et ignorez l'effet des cases Brume. Le reste des règles est inchangé."),
        ("h2", "10.2 Variante solo : le Vol du Solitaire"),
        ("p", "Seul contre les vents, vous devez atteindre le Phare du Couchant en **8 manches au plus** "
              "et avec au moins **4 jetons Photo**. Vous commencez avec 5 jetons Flamme et 3 sacs de Lest, "
              "sans objectif secret. Votre score est le nombre de manches restantes sur la piste multiplié "
              "par 2, plus 3 points par photo. Un score de 20 ou plus est une traversée légendaire."),
        ("h2", "10.3 Résumé d'une manche"),
        ("table", ("Phase", "Ce qu'il faut faire"), [
            ("1. Vent", "Révéler une carte Vent : une flèche par couche"),
            ("2. Pilotes", "Chaque joueur : jusqu'à 2 actions, puis dérive de son ballon"),
            ("3. Entretien", "Couche haute : payer 1 Flamme ; défausser la carte Vent ; "
                             "passer la Boussole ; avancer le marqueur de manche"),
        ], (35, 139)),
        ("box", "Bon vol !",
         "Vous connaissez maintenant toutes les règles des Aéronautes. Les questions fréquentes sont "
         "traitées dans la FAQ officielle, et l'extension Storm Front ajoute orages et paratonnerres."),
    ],
}

BASE_PAGES = [
    _TITLE,
    _OVERVIEW_AND_COMPONENTS,
    _SETUP,
    _ROUND,
    _ACTIONS_1,
    _ACTIONS_2,
    _ALTITUDE_COLUMNS,
    _ICONS,
    _SPECIAL_CASES,
    _END_AND_SCORING,
    _VARIANTS,
]

# ---------------------------------------------------------------- expansion (English)

EXPANSION_PAGES = [
    {
        "layout": "title",
        "title": "STORM FRONT",
        "subtitle": "An expansion for Les Aéronautes — storms, lightning and daring rescues",
        "facts": "2 to 5 players  ·  ages 12+  ·  60 to 75 minutes",
        "blocks": [
            ("p", "Dark clouds gather over the Vellune archipelago. Storm Front adds moving storms, "
                  "lightning rods and a rescue service to the base game. You need the base game to play."),
            ("h2", "Using this booklet"),
            ("p", "All rules of the base game apply unless this booklet says otherwise. Whenever this "
                  "booklet contradicts the base rulebook, **this booklet takes precedence**. Rule numbers "
                  "such as 4.3 or 9.1 refer to the sections of the base rulebook."),
        ],
    },
    {
        "layout": "flow",
        "blocks": [
            ("h1", "1. Components"),
            ("table", ("Component", "Quantity", "Use"), [
                ("Storm tiles", "4", "Placed on the board, move every round"),
                ("Lightning Rod cards", "5", "Protect a balloon from one lightning strike"),
                ("Squall Wind cards", "8", "Shuffled into the Wind deck"),
                ("Rescue tokens", "6", "Taken by a balloon that ditches at sea"),
                ("Storm Photo tokens", "10", "Photos of a storm, worth 4 points each"),
            ], (55, 25, 94)),
            ("h1", "2. Setup changes"),
            ("p", "Shuffle the 8 Squall cards into the Wind deck. Place the 4 Storm tiles on the four sea "
                  "hexes marked with a lightning bolt on the board. Each player starts with **3 Flame "
                  "tokens** instead of 4 (two-player games: 4 instead of 5); storms make the ride "
                  "dangerous, but the Lightning Rods cost gas."),
            ("h1", "3. Drift (replaces rule 4.3 of the base game)"),
            ("p", "This replaces rule 4.3 of the base game. After the active player's actions, their "
                  "balloon drifts a number of hexes equal to its layer's strength **plus the gust value** "
                  "printed on the Wind card (0, 1 or 2):"),
            ("ul", [
                "low layer: 1 hex (the low layer ignores gusts);",
                "middle layer: 2 hexes plus the gust value;",
                "high layer: 3 hexes plus the gust value.",
            ]),
            ("p", "The Gust icon of the base game no longer has its own effect: use the printed gust "
                  "value instead. A balloon that enters a hex containing a Storm tile **stops there "
                  "immediately** and is struck by lightning (see 4.2 of this booklet)."),
        ],
    },
    {
        "layout": "flow",
        "blocks": [
            ("h1", "4. Storms"),
            ("h2", "4.1 Moving storms"),
            ("p", "During the Wind phase, after the Wind card is revealed, every Storm tile moves "
                  "**1 hex** in the direction of the middle layer arrow. A storm that would leave the board "
                  "is placed back on its starting hex. Storms never stop on an island with a Depot."),
            ("h2", "4.2 Lightning strikes"),
            ("p", "A balloon struck by lightning loses **2 Flame tokens** and descends one layer. A "
                  "balloon that holds a Lightning Rod card discards it instead and suffers no other "
                  "effect. A landed balloon is never struck."),
            ("h2", "4.3 Lightning Rods"),
            ("p", "New action — **Equip**: if your balloon is landed on an island with a Depot, pay "
                  "2 Flame tokens to take a Lightning Rod card. A player may hold only one Lightning Rod "
                  "at a time."),
            ("h1", "5. Photographing (modifies rule 5.6 of the base game)"),
            ("p", "Rule 5.6 of the base game is modified: you may now photograph a Wonder from the "
                  "**high layer**, but only if your balloon is on the Wonder's own hex (not an adjacent "
                  "hex). You may also photograph a Storm from an adjacent hex, in any layer: take a Storm "
                  "Photo token. Each photo action still counts as your one photo of the turn."),
            ("h1", "6. Ditching at sea (replaces rule 8.4 of the base game)"),
            ("p", "This replaces rule 8.4 of the base game. A balloon that ditches at sea is no longer "
                  "brought to the nearest Depot and its pilot does not lose a turn. Instead, the pilot "
                  "takes a **Rescue token**, and the balloon is placed, landed, on the nearest island "
                  "that is not a Reef. Each Rescue token costs 2 points at the end of the game."),
        ],
    },
    {
        "layout": "flow",
        "blocks": [
            ("h1", "7. End of the game (replaces rule 9.1 of the base game)"),
            ("p", "This replaces rule 9.1 of the base game. The game ends at the end of the round in "
                  "which the **third balloon** reaches the Lighthouse of the Sunset (Phare du Couchant). "
                  "With two or three players, it ends at the end of the round in which the second balloon "
                  "arrives. In any case the game ends at the latest at the end of **round 12**: extend the "
                  "round track with the Storm Front round card."),
            ("h1", "8. Scoring changes (table 9.2)"),
            ("table", ("Criterion", "Victory points"), [
                ("Each Storm Photo token", "4 points"),
                ("Unused Lightning Rod card", "1 point"),
                ("Each Rescue token", "minus 2 points"),
                ("Balloon that did not reach the Lighthouse", "minus 5 points (instead of minus 3)"),
            ], (100, 74)),
            ("p", "All other lines of table 9.2 are unchanged."),
            ("h1", "9. New icons"),
            ("icons", [
                ("lightning", "Lightning bolt", "A Storm hex. A balloon entering it stops and is struck "
                                                "by lightning: lose 2 Flame tokens and descend one layer."),
                ("rod", "Lightning Rod", "Discard this card to ignore one lightning strike. Costs 2 Flame "
                                         "tokens with the Equip action at a Depot."),
                ("buoy", "Rescue buoy", "A Rescue token, taken when your balloon ditches at sea: "
                                        "minus 2 points at the end of the game."),
            ]),
        ],
    },
]

# ---------------------------------------------------------------- FAQ (French, scanned)

FAQ_PAGE = {
    "title": "Les Aéronautes — FAQ officielle",
    "lines": [
        ("title", "LES AÉRONAUTES — Questions fréquentes"),
        ("small", "FAQ officielle, version 1.1. Ces réponses complètent le livret de règles."),
        ("q", "Peut-on lâcher du lest quand son ballon est atterri ?"),
        ("p", "Oui. Le ballon décolle alors directement en couche basse sans payer de Flamme. C'est la "
              "seule façon de décoller gratuitement."),
        ("q", "Deux ballons atteignent le Phare pendant la même manche : lequel est premier ?"),
        ("p", "Celui qui l'atteint en premier dans l'ordre du tour. Le jeton Arrivée est pris "
              "immédiatement, au moment de la dérive."),
        ("q", "Que se passe-t-il quand les jetons Photo d'une Merveille sont épuisés ?"),
        ("p", "Notez la photo sur le carnet de score : elle rapporte toujours 3 points."),
        ("q", "Peut-on atterrir sur Port-Céleste ?"),
        ("p", "Oui. Port-Céleste est une île avec un Dépôt : on peut donc y Ravitailler."),
        ("q", "Un ballon arrivé au Phare continue-t-il à jouer ?"),
        ("p", "Non. Son pilote ne fait plus d'action et ne paie plus d'entretien, mais il garde ses "
              "Flammes pour le décompte final."),
        ("q", "Que faire si la carte Vent révélée est la carte Calme plat ?"),
        ("p", "Aucun ballon ne dérive pendant cette manche. Les pilotes jouent normalement leurs actions."),
        ("q", "Le Courant ascendant fonctionne-t-il pour un ballon atterri ?"),
        ("p", "Non. Seul un ballon en vol qui termine sa dérive sur la case est emporté vers le haut."),
    ],
}
